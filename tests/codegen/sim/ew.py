# CPU reference for examples/elementwise.fly (bf16 out = 2*x + y, RNE), and a check
# that nothing beyond N is written. usage: ew.py N gen | ew.py N check
import struct, sys
N=int(sys.argv[1])
def bf(v):  # f32 -> bf16 bits (values here are exact)
    b=struct.unpack('<I',struct.pack('<f',v))[0]
    return b>>16
def unbf(h): return struct.unpack('<f',struct.pack('<I',h<<16))[0]
if sys.argv[2]=='gen':
    open('ex.bin','wb').write(struct.pack('<%dH'%N,*[bf(float(i%200)) for i in range(N)]))
    open('ey.bin','wb').write(struct.pack('<%dH'%N,*[bf(float(i%50)-7) for i in range(N)]))
else:
    o=struct.unpack('<%dH'%N,open('eout.bin','rb').read()[:2*N])
    def rne(v):
        b=struct.unpack('<I',struct.pack('<f',v))[0]
        b=(b+0x7FFF+((b>>16)&1))>>16
        return unbf(b)
    bad=[i for i in range(N) if unbf(o[i])!=rne(2.0*(i%200)+(i%50)-7)]
    print('checked',N,'bad',len(bad),bad[:5])
    tail=open('eout.bin','rb').read()[2*N:]
    print('beyond N untouched:', all(b==0xAB for b in tail))
