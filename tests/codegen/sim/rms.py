# CPU reference for examples/rmsnorm.fly (rmsnorm_4096). usage: rms.py ROWS gen|check
import struct, sys, math, random
R=int(sys.argv[1]); N=4096
def bf(v):
    b=struct.unpack('<I',struct.pack('<f',v))[0]
    return ((b+0x7FFF+((b>>16)&1))>>16)&0xFFFF
def unbf(h): return struct.unpack('<f',struct.pack('<I',h<<16))[0]
random.seed(1)
if sys.argv[2]=='gen':
    xs=[bf(random.uniform(-2,2)) for _ in range(R*N)]
    ws=[bf(random.uniform(0.5,1.5)) for _ in range(N)]
    open('rx.bin','wb').write(struct.pack('<%dH'%(R*N),*xs))
    open('rw.bin','wb').write(struct.pack('<%dH'%N,*ws))
else:
    xs=struct.unpack('<%dH'%(R*N),open('rx.bin','rb').read())
    ws=struct.unpack('<%dH'%N,open('rw.bin','rb').read())
    ys=struct.unpack('<%dH'%(R*N),open('ry.bin','rb').read())
    eps=1e-5; worst=0
    for r in range(R):
        row=[unbf(h) for h in xs[r*N:(r+1)*N]]
        ms=sum(v*v for v in row)/N
        s=1/math.sqrt(ms+eps)
        for j in range(N):
            ref=row[j]*s*unbf(ws[j]); got=unbf(ys[r*N+j])
            err=abs(got-ref)/max(abs(ref),1e-3)
            worst=max(worst,err)
    print('rows',R,'max rel err',worst, 'PASS' if worst<1e-2 else 'FAIL')
