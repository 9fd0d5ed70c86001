# CPU reference for examples/reduction.fly (row sums, partial-lane and workgroup maxima).
# usage: red.py R C gen|check
import struct, sys, random
R=int(sys.argv[1]); C=int(sys.argv[2]); W=4; G=(R+W-1)//W
random.seed(2)
if sys.argv[3]=='gen':
    xs=[float(random.randint(-8,8)) for _ in range(R*C)]
    open('qx.bin','wb').write(struct.pack('<%df'%(R*C),*xs))
else:
    xs=struct.unpack('<%df'%(R*C),open('qx.bin','rb').read())
    out=struct.unpack('<%df'%R,open('qout.bin','rb').read())
    rm=struct.unpack('<%df'%G,open('qmax.bin','rb').read())
    bad=0
    for r in range(R):
        if out[r]!=sum(xs[r*C:(r+1)*C]): bad+=1
    for g in range(G):
        sums=[sum(xs[r*C:(r+1)*C]) if r<R else -1e30 for r in range(g*W,g*W+W)]
        m=max(sums)
        r0=g*W   # wave 0's row
        lanes=[sum(xs[r0*C+j] for j in range(l,C,64)) if r0<R else 0.0 for l in range(16)]
        ref=max(m,max(lanes))
        if abs(rm[g]-ref)>1e-3: bad+=1; print('rowmax',g,rm[g],ref)
    print('R',R,'C',C,'bad',bad,'PASS' if bad==0 else 'FAIL')
