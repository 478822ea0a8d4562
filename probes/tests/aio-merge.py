# SPDX-License-Identifier: GPL-2.0-or-later
# aio-merge.py FILE BATCHES ORDER: direct reads of 4 KiB from FILE in
# batches, each in one io_submit, which the kernel plugs (3 reads or
# more), so that adjacent bios merge into one request. ORDER gives the
# blocks of a batch in submission order: "1,0,2" submits the middle
# one (its request allocated, block_getrq), then the one before it (a
# front merge: the request's first bio changes), then the one after (a
# back merge). Batch b reads the blocks from b * len(ORDER) on; FILE must
# have BATCHES * len(ORDER) blocks.
# Linux AIO by its system calls (x86_64 numbers), no library needed.
import ctypes, mmap, os, sys

path, batches = sys.argv[1], int(sys.argv[2])
order = [int(k) for k in sys.argv[3].split(",")]
per = len(order)
libc = ctypes.CDLL(None, use_errno=True)
SYS_io_setup, SYS_io_destroy, SYS_io_getevents, SYS_io_submit = 206, 207, 208, 209


class Iocb(ctypes.Structure):
    _fields_ = [("data", ctypes.c_uint64), ("key", ctypes.c_uint32), ("rw_flags", ctypes.c_int32),
                ("opcode", ctypes.c_uint16), ("reqprio", ctypes.c_int16), ("fildes", ctypes.c_uint32),
                ("buf", ctypes.c_uint64), ("nbytes", ctypes.c_uint64), ("offset", ctypes.c_int64),
                ("reserved2", ctypes.c_uint64), ("flags", ctypes.c_uint32), ("resfd", ctypes.c_uint32)]


class Event(ctypes.Structure):
    _fields_ = [("data", ctypes.c_uint64), ("obj", ctypes.c_uint64), ("res", ctypes.c_int64),
                ("res2", ctypes.c_int64)]


fd = os.open(path, os.O_RDONLY | os.O_DIRECT)
ctx = ctypes.c_ulong(0)
if libc.syscall(SYS_io_setup, per, ctypes.byref(ctx)) != 0:
    sys.exit("io_setup: errno %d" % ctypes.get_errno())
buf = mmap.mmap(-1, 4096 * per)
base = ctypes.addressof(ctypes.c_char.from_buffer(buf))
cbs = (Iocb * per)()
ptrs = (ctypes.POINTER(Iocb) * per)()
events = (Event * per)()
for b in range(batches):
    for i, k in enumerate(order):
        cbs[i] = Iocb(data=i, opcode=0, fildes=fd, buf=base + k * 4096, nbytes=4096,
                      offset=(b * per + k) * 4096)
        ptrs[i] = ctypes.pointer(cbs[i])
    if libc.syscall(SYS_io_submit, ctx, per, ptrs) != per:
        sys.exit("io_submit: errno %d" % ctypes.get_errno())
    got = 0
    while got < per:
        n = libc.syscall(SYS_io_getevents, ctx, 1, per - got, events, None)
        if n <= 0:
            sys.exit("io_getevents: errno %d" % ctypes.get_errno())
        got += n
libc.syscall(SYS_io_destroy, ctx)
