/* unit.h --- common includes for the cmocka unit tests of libe4. */
#ifndef E4_UNIT_H
#define E4_UNIT_H
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <stdlib.h>
#include <cmocka.h>

#include <et/com_err.h>
#include "e4.h"
#endif
