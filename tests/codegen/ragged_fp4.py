"""ragged_fp4.py gen N x.bin | check N x.bin y.bin (tests/codegen/ragged-fp4.test): x holds
N random fp4 values (ceil(N/2) bytes, a random high nibble past N when N is odd); y must
hold x's N values and zeros in the other 1024 - N. Prints "bad COUNT [first indices]"."""
import random
import sys


def nib(buf, i):
    return (buf[i // 2] >> (4 * (i % 2))) & 15


if sys.argv[1] == "gen":
    n = int(sys.argv[2])
    rng = random.Random(n)
    open(sys.argv[3], "wb").write(bytes(rng.randrange(256) for _ in range((n + 1) // 2)))
else:
    n = int(sys.argv[2])
    x, y = open(sys.argv[3], "rb").read(), open(sys.argv[4], "rb").read()
    bad = [i for i in range(1024) if nib(y, i) != (nib(x, i) if i < n else 0)]
    print("bad %d %s" % (len(bad), bad[:8]))
