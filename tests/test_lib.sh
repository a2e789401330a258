# test_lib.sh --- what every image test sources first:
#	. "$TOP/tests/test_lib.sh"
# It loads the shell helpers of tests/lib/ (tests/README, "Helpers"):
# common.sh for all tests, unwritten.sh (u_*), itable.sh (i_*), fc.sh
# (the fast-commit tests) and wlog.sh (w_*).
for _lib in common unwritten itable fc wlog; do
	. "$TOP/tests/lib/$_lib.sh"
done
unset _lib
