"""peak_rss.py CMD... — run CMD (its output discarded) and print "KB STATUS WALL CPU": the
peak resident set size of CMD in kilobytes (getrusage of the child), its exit status, its wall
time and its user+system CPU time in seconds. Used by tests/lang/run.sh to bound the front
end's memory (without timing anything) and by scripts/bench-compile.sh."""
import resource
import subprocess
import sys
import time

t0 = time.monotonic()
rc = subprocess.call(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
wall = time.monotonic() - t0
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
print(ru.ru_maxrss, rc, "%.3f" % wall, "%.3f" % (ru.ru_utime + ru.ru_stime))
