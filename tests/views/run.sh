# tests/views — tensor operations on run-time tensors (codegen_view.c) run on the
# simulator and compared with `flyc eval` of the same layout (views.py).
. "$FLY_TOP/tests/lib.sh"
case "$FLY_BUILD" in /*) ;; *) FLY_BUILD=$FLY_TOP/$FLY_BUILD ;; esac
export FLY_TOP FLY_BUILD
/usr/bin/python3 "$FLY_TOP/tests/views/views.py" >"$TMP/out" 2>&1
rc=$?
cat "$TMP/out"
if [ "$rc" != 0 ] && ! grep -q '^FAIL' "$TMP/out"; then fail views "views.py exited $rc" "$(tail -n 20 "$TMP/out")"; fi
