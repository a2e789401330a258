/*
 * undo_guard.h --- the backing io_manager of e4tools' undo files
 * (lib/support/undo_guard.c).
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#ifndef E4_SUPPORT_UNDO_GUARD_H
#define E4_SUPPORT_UNDO_GUARD_H

#include <ext2fs/ext2fs.h>

/*
 * e4s_undo_guard_manager - the backing io_manager e4tools gives
 * libext2fs's undo io_manager (open.c): unix_io, except that the first
 * write failing on the device or on the undo file fails every later write
 * on both (undo_io marks a block saved before its copy is written).
 * e4s_undo_guard_error() - that first error, 0 if none.
 */
extern io_manager e4s_undo_guard_manager;
errcode_t e4s_undo_guard_error(void);

/*
 * e4s_undo_guard_wrote() - 1 once a device write (not an undo file's)
 * went through the undo guard, else 0.  Async-signal-safe.
 *
 * e4s_undo_guard_stop() - from a signal handler (target.c): every later
 * device write through the guard fails with EINTR, undo file writes go
 * on, so the run's own failure path runs (its undo file closed with a
 * finished header, e2undo's; the image partly written, as a write error
 * leaves it).  Not undone.  Async-signal-safe.
 *
 * e4s_undo_guard_stopped() - 1 after e4s_undo_guard_stop(), else 0.
 *
 * Test hook: E4_TEST_STOP_WRITE=K raises SIGSTOP before the K-th device
 * write through the guard (tests/r_sigint_undo).
 */
int e4s_undo_guard_wrote(void);
void e4s_undo_guard_stop(void);
int e4s_undo_guard_stopped(void);

/*
 * e4s_undo_guard_name() - the undo file's name (its channel's writes go
 * uncached, as the guard's own): set with the undo io_manager's backup
 * file (open.c).  Returns 0 or EXT2_ET_NO_MEMORY (the old name kept).
 */
errcode_t e4s_undo_guard_name(const char *undo_file);

#endif /* E4_SUPPORT_UNDO_GUARD_H */
