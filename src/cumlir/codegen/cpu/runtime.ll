; The CPU code's runtime (docs/simulator.md): the state of the simulated threads, what the
; kernel's special registers read, the protocol a thread follows at a barrier or a warp
; operation, and the loops that run a launch's blocks. Linked into every kernel compiled
; for the CPU; the kernel's module defines @__sim.entry (its parameters unpacked) and
; @__sim.block (one of the two block runners below, and whether it resumes a block parked
; at a grid barrier).

%Thread = type { ptr, [3 x i32], i32, i32, i32, i32, i32, i64, i64, i64 }

; the launch being run: [ctaid x y z, ntid x y z, nctaid x y z, dynamic shared bytes, threads per block, status]
@__sim.launch = internal global [12 x i32] zeroinitializer, align 4
@__sim.current = internal global ptr null, align 8

declare ptr @malloc(i64)
declare void @free(ptr)
declare i32 @cumlir_sim_resolve(ptr, i32)
declare void @__sim.entry(ptr)
declare i32 @__sim.block(ptr, ptr, i32, i32)

define linkonce_odr i32 @__sim.launch_word(i32 %i) alwaysinline {
  %p = getelementptr [12 x i32], ptr @__sim.launch, i32 0, i32 %i
  %v = load i32, ptr %p, align 4
  ret i32 %v
}

; a word of the current thread's record, by its offset (8: tid, 20: linear index)
define linkonce_odr i32 @__sim.thread_word(i32 %offset) alwaysinline {
  %t = load ptr, ptr @__sim.current, align 8
  %p = getelementptr i8, ptr %t, i32 %offset
  %v = load i32, ptr %p, align 4
  ret i32 %v
}

define linkonce_odr i32 @__sim.nvvm.read.ptx.sreg.tid.x() alwaysinline { %v = call i32 @__sim.thread_word(i32 8) ret i32 %v }
define linkonce_odr i32 @__sim.nvvm.read.ptx.sreg.tid.y() alwaysinline { %v = call i32 @__sim.thread_word(i32 12) ret i32 %v }
define linkonce_odr i32 @__sim.nvvm.read.ptx.sreg.tid.z() alwaysinline { %v = call i32 @__sim.thread_word(i32 16) ret i32 %v }
define linkonce_odr i32 @__sim.nvvm.read.ptx.sreg.ctaid.x() alwaysinline { %v = call i32 @__sim.launch_word(i32 0) ret i32 %v }
define linkonce_odr i32 @__sim.nvvm.read.ptx.sreg.ctaid.y() alwaysinline { %v = call i32 @__sim.launch_word(i32 1) ret i32 %v }
define linkonce_odr i32 @__sim.nvvm.read.ptx.sreg.ctaid.z() alwaysinline { %v = call i32 @__sim.launch_word(i32 2) ret i32 %v }
define linkonce_odr i32 @__sim.nvvm.read.ptx.sreg.ntid.x() alwaysinline { %v = call i32 @__sim.launch_word(i32 3) ret i32 %v }
define linkonce_odr i32 @__sim.nvvm.read.ptx.sreg.ntid.y() alwaysinline { %v = call i32 @__sim.launch_word(i32 4) ret i32 %v }
define linkonce_odr i32 @__sim.nvvm.read.ptx.sreg.ntid.z() alwaysinline { %v = call i32 @__sim.launch_word(i32 5) ret i32 %v }
define linkonce_odr i32 @__sim.nvvm.read.ptx.sreg.nctaid.x() alwaysinline { %v = call i32 @__sim.launch_word(i32 6) ret i32 %v }
define linkonce_odr i32 @__sim.nvvm.read.ptx.sreg.nctaid.y() alwaysinline { %v = call i32 @__sim.launch_word(i32 7) ret i32 %v }
define linkonce_odr i32 @__sim.nvvm.read.ptx.sreg.nctaid.z() alwaysinline { %v = call i32 @__sim.launch_word(i32 8) ret i32 %v }
define linkonce_odr i32 @__sim.nvvm.read.ptx.sreg.dynamic_smem_size() alwaysinline { %v = call i32 @__sim.launch_word(i32 9) ret i32 %v }

define linkonce_odr i32 @__sim.nvvm.read.ptx.sreg.laneid() alwaysinline {
  %l = call i32 @__sim.thread_word(i32 20)
  %v = and i32 %l, 31
  ret i32 %v
}
define linkonce_odr i32 @__sim.nvvm.read.ptx.sreg.warpid() alwaysinline {
  %l = call i32 @__sim.thread_word(i32 20)
  %v = lshr i32 %l, 5
  ret i32 %v
}
define linkonce_odr i32 @__sim.nvvm.read.ptx.sreg.nwarpid() alwaysinline {
  %n = call i32 @__sim.launch_word(i32 10)
  %a = add i32 %n, 31
  %v = lshr i32 %a, 5
  ret i32 %v
}
define linkonce_odr i32 @__sim.lane_bit() alwaysinline {
  %l = call i32 @__sim.nvvm.read.ptx.sreg.laneid()
  %v = shl i32 1, %l
  ret i32 %v
}
define linkonce_odr i32 @__sim.nvvm.read.ptx.sreg.lanemask.eq() alwaysinline { %b = call i32 @__sim.lane_bit() ret i32 %b }
define linkonce_odr i32 @__sim.nvvm.read.ptx.sreg.lanemask.lt() alwaysinline {
  %b = call i32 @__sim.lane_bit()
  %v = sub i32 %b, 1
  ret i32 %v
}
define linkonce_odr i32 @__sim.nvvm.read.ptx.sreg.lanemask.le() alwaysinline {
  %b = call i32 @__sim.lane_bit()
  %lt = sub i32 %b, 1
  %v = or i32 %lt, %b
  ret i32 %v
}
define linkonce_odr i32 @__sim.nvvm.read.ptx.sreg.lanemask.gt() alwaysinline {
  %le = call i32 @__sim.nvvm.read.ptx.sreg.lanemask.le()
  %v = xor i32 %le, -1
  ret i32 %v
}
define linkonce_odr i32 @__sim.nvvm.read.ptx.sreg.lanemask.ge() alwaysinline {
  %lt = call i32 @__sim.nvvm.read.ptx.sreg.lanemask.lt()
  %v = xor i32 %lt, -1
  ret i32 %v
}
define linkonce_odr i32 @__sim.nvvm.read.ptx.sreg.warpsize() alwaysinline { ret i32 32 }
define linkonce_odr i32 @__sim.nvvm.read.ptx.sreg.smid() alwaysinline { ret i32 0 }
define linkonce_odr i32 @__sim.nvvm.read.ptx.sreg.nsmid() alwaysinline { ret i32 1 }
define linkonce_odr i32 @__sim.nvvm.read.ptx.sreg.gridid() alwaysinline { ret i32 1 }
define linkonce_odr i64 @__sim.nvvm.read.ptx.sreg.clock64() alwaysinline {
  %c = call i64 @llvm.readcyclecounter()
  ret i64 %c
}
define linkonce_odr i32 @__sim.nvvm.read.ptx.sreg.clock() alwaysinline {
  %c = call i64 @llvm.readcyclecounter()
  %v = trunc i64 %c to i32
  ret i32 %v
}
define linkonce_odr i64 @__sim.nvvm.read.ptx.sreg.globaltimer() alwaysinline {
  %c = call i64 @llvm.readcyclecounter()
  ret i64 %c
}
declare i64 @llvm.readcyclecounter()

; memory ordering: blocks of one launch run on the host's threads, whose fences these are
define linkonce_odr void @__sim.nvvm.membar.cta() alwaysinline { fence seq_cst ret void }
define linkonce_odr void @__sim.nvvm.membar.gl() alwaysinline { fence seq_cst ret void }
define linkonce_odr void @__sim.nvvm.membar.sys() alwaysinline { fence seq_cst ret void }
define linkonce_odr void @__sim.nvvm.fence.sc.cluster() alwaysinline { fence seq_cst ret void }
define linkonce_odr void @__sim.nvvm.nanosleep(i32 %t) alwaysinline { ret void }

; the approximate forms (fast math) as the host's exact ones (denormals not flushed)
define linkonce_odr float @__sim.nvvm.rcp.approx.ftz.f(float %x) alwaysinline { %v = fdiv float 1.0, %x ret float %v }
define linkonce_odr double @__sim.nvvm.rcp.approx.ftz.d(double %x) alwaysinline { %v = fdiv double 1.0, %x ret double %v }
define linkonce_odr float @__sim.nvvm.div.approx.f(float %a, float %b) alwaysinline { %v = fdiv float %a, %b ret float %v }
define linkonce_odr float @__sim.nvvm.div.approx.ftz.f(float %a, float %b) alwaysinline { %v = fdiv float %a, %b ret float %v }
define linkonce_odr float @__sim.nvvm.div.full(float %a, float %b) alwaysinline { %v = fdiv float %a, %b ret float %v }
define linkonce_odr float @__sim.nvvm.div.full.ftz(float %a, float %b) alwaysinline { %v = fdiv float %a, %b ret float %v }
define linkonce_odr float @__sim.nvvm.rsqrt.approx.f(float %x) alwaysinline {
  %r = call float @llvm.sqrt.f32(float %x)
  %v = fdiv float 1.0, %r
  ret float %v
}
define linkonce_odr float @__sim.nvvm.rsqrt.approx.ftz.f(float %x) alwaysinline {
  %v = call float @__sim.nvvm.rsqrt.approx.f(float %x)
  ret float %v
}
define linkonce_odr double @__sim.nvvm.rsqrt.approx.d(double %x) alwaysinline {
  %r = call double @llvm.sqrt.f64(double %x)
  %v = fdiv double 1.0, %r
  ret double %v
}
define linkonce_odr float @__sim.nvvm.ex2.approx.f(float %x) alwaysinline { %v = call float @llvm.exp2.f32(float %x) ret float %v }
define linkonce_odr float @__sim.nvvm.ex2.approx.ftz.f(float %x) alwaysinline { %v = call float @llvm.exp2.f32(float %x) ret float %v }
define linkonce_odr float @__sim.nvvm.lg2.approx.f(float %x) alwaysinline { %v = call float @llvm.log2.f32(float %x) ret float %v }
define linkonce_odr float @__sim.nvvm.lg2.approx.ftz.f(float %x) alwaysinline { %v = call float @llvm.log2.f32(float %x) ret float %v }
define linkonce_odr float @__sim.nvvm.sin.approx.f(float %x) alwaysinline { %v = call float @llvm.sin.f32(float %x) ret float %v }
define linkonce_odr float @__sim.nvvm.sin.approx.ftz.f(float %x) alwaysinline { %v = call float @llvm.sin.f32(float %x) ret float %v }
define linkonce_odr float @__sim.nvvm.cos.approx.f(float %x) alwaysinline { %v = call float @llvm.cos.f32(float %x) ret float %v }
define linkonce_odr float @__sim.nvvm.cos.approx.ftz.f(float %x) alwaysinline { %v = call float @llvm.cos.f32(float %x) ret float %v }
declare float @llvm.sqrt.f32(float)
declare double @llvm.sqrt.f64(double)
declare float @llvm.exp2.f32(float)
declare float @llvm.log2.f32(float)
declare float @llvm.sin.f32(float)
declare float @llvm.cos.f32(float)

; the protocol of a thread (simulation.py): frames, waiting, results, the end
define linkonce_odr ptr @__sim.frame_alloc(i64 %n) { %p = call ptr @malloc(i64 %n) ret ptr %p }
define linkonce_odr void @__sim.frame_free(ptr %p) { call void @free(ptr %p) ret void }

define linkonce_odr void @__sim.started(ptr %h) alwaysinline {
  %t = load ptr, ptr @__sim.current, align 8
  store ptr %h, ptr %t, align 8
  ret void
}

define linkonce_odr void @__sim.wait(i32 %op, i32 %site, i32 %mask, i64 %value, i64 %operand) alwaysinline {
  %t = load ptr, ptr @__sim.current, align 8
  %kind = icmp ult i32 %op, 16
  %wait = select i1 %kind, i32 1, i32 2
  %pw = getelementptr %Thread, ptr %t, i32 0, i32 3
  store i32 %wait, ptr %pw, align 4
  %ps = getelementptr %Thread, ptr %t, i32 0, i32 4
  store i32 %site, ptr %ps, align 4
  %po = getelementptr %Thread, ptr %t, i32 0, i32 5
  store i32 %op, ptr %po, align 4
  %pm = getelementptr %Thread, ptr %t, i32 0, i32 6
  store i32 %mask, ptr %pm, align 4
  %pv = getelementptr %Thread, ptr %t, i32 0, i32 7
  store i64 %value, ptr %pv, align 8
  %pa = getelementptr %Thread, ptr %t, i32 0, i32 8
  store i64 %operand, ptr %pa, align 8
  ret void
}

define linkonce_odr i64 @__sim.result() alwaysinline {
  %t = load ptr, ptr @__sim.current, align 8
  %p = getelementptr %Thread, ptr %t, i32 0, i32 9
  %v = load i64, ptr %p, align 8
  ret i64 %v
}

define linkonce_odr void @__sim.finished() alwaysinline {
  %t = load ptr, ptr @__sim.current, align 8
  %p = getelementptr %Thread, ptr %t, i32 0, i32 3
  store i32 3, ptr %p, align 4
  ret void
}

; a trap: the launch fails once its threads stop (status word 11)
define linkonce_odr void @__sim.trap() {
  %p = getelementptr [12 x i32], ptr @__sim.launch, i32 0, i32 11
  store i32 1, ptr %p, align 4
  ret void
}

define linkonce_odr void @__sim.select(ptr %threads, i32 %t) alwaysinline {
  %p = getelementptr %Thread, ptr %threads, i32 %t
  store ptr %p, ptr @__sim.current, align 8
  ret void
}

; a block whose threads never wait for each other: each runs to its end in turn
define linkonce_odr i32 @__sim.block_in_turn(ptr %params, ptr %threads, i32 %n, i32 %resume) {
entry:
  br label %loop
loop:
  %t = phi i32 [ 0, %entry ], [ %t.next, %body ]
  %more = icmp ult i32 %t, %n
  br i1 %more, label %body, label %done
body:
  call void @__sim.select(ptr %threads, i32 %t)
  call void @__sim.entry(ptr %params)
  %t.next = add i32 %t, 1
  br label %loop
done:
  ret i32 0
}

; a block whose threads wait for each other: each a coroutine, run until it waits; when
; none can run, the barrier is released here if every thread still running waits at the
; same one, and anything else is resolved by the host (cumlir_sim_resolve). The host's 2
; parks the block at a grid barrier: its threads are kept, and a later call with %again
; runs on those the host made runnable (the block's globals are the host's to restore)
define linkonce_odr i32 @__sim.block_as_coroutines(ptr %params, ptr %threads, i32 %n, i32 %again) {
entry:
  %resuming = icmp ne i32 %again, 0
  br i1 %resuming, label %count, label %start
start:
  %s = phi i32 [ 0, %entry ], [ %s.next, %start.body ]
  %s.more = icmp ult i32 %s, %n
  br i1 %s.more, label %start.body, label %round
start.body:
  call void @__sim.select(ptr %threads, i32 %s)
  call void @__sim.entry(ptr %params)
  %s.next = add i32 %s, 1
  br label %start
round:
  %r = call i32 @__sim.release(ptr %threads, i32 %n)
  %finished = icmp eq i32 %r, 0
  br i1 %finished, label %destroy, label %parked
parked:
  %at.grid = icmp eq i32 %r, 2
  br i1 %at.grid, label %end.parked, label %checked
end.parked:
  ret i32 2
checked:
  %failed = icmp slt i32 %r, 0
  br i1 %failed, label %destroy, label %count
count:
  call void @__sim.count_released(ptr %threads, i32 %n)
  br label %resume
resume:
  %u = phi i32 [ 0, %count ], [ %u.next, %resume.next ]
  %u.more = icmp ult i32 %u, %n
  br i1 %u.more, label %resume.body, label %round
resume.body:
  %rt = getelementptr %Thread, ptr %threads, i32 %u
  %rw.p = getelementptr %Thread, ptr %rt, i32 0, i32 3
  %rw = load i32, ptr %rw.p, align 4
  %runnable = icmp eq i32 %rw, 4
  br i1 %runnable, label %resume.run, label %resume.next
resume.run:
  store i32 0, ptr %rw.p, align 4
  store ptr %rt, ptr @__sim.current, align 8
  %h = load ptr, ptr %rt, align 8
  call void @llvm.coro.resume(ptr %h)
  br label %resume.next
resume.next:
  %u.next = add i32 %u, 1
  br label %resume
destroy:
  %d = phi i32 [ 0, %round ], [ 0, %checked ], [ %d.next, %destroy.next ]
  %d.more = icmp ult i32 %d, %n
  br i1 %d.more, label %destroy.body, label %end
destroy.body:
  %dt = getelementptr %Thread, ptr %threads, i32 %d
  %dh = load ptr, ptr %dt, align 8
  %live = icmp ne ptr %dh, null
  br i1 %live, label %destroy.run, label %destroy.next
destroy.run:
  call void @llvm.coro.destroy(ptr %dh)
  store ptr null, ptr %dt, align 8
  br label %destroy.next
destroy.next:
  %d.next = add i32 %d, 1
  br label %destroy
end:
  ret i32 %r
}
declare void @llvm.coro.resume(ptr)
declare void @llvm.coro.destroy(ptr)

; releases the block's barrier when every thread not finished waits at it from one call
; site: 1; every thread finished: 0; anything else is the host's to resolve
define linkonce_odr i32 @__sim.release(ptr %threads, i32 %n) {
entry:
  br label %scan
scan:
  %i = phi i32 [ 0, %entry ], [ %i.next, %scan.next ]
  %waiting = phi i32 [ 0, %entry ], [ %waiting.next, %scan.next ]
  %site0 = phi i32 [ -1, %entry ], [ %site.next, %scan.next ]
  %op0 = phi i32 [ 0, %entry ], [ %op.next, %scan.next ]
  %ones = phi i32 [ 0, %entry ], [ %ones.next, %scan.next ]
  %more = icmp ult i32 %i, %n
  br i1 %more, label %scan.body, label %decide
scan.body:
  %t = getelementptr %Thread, ptr %threads, i32 %i
  %w.p = getelementptr %Thread, ptr %t, i32 0, i32 3
  %w = load i32, ptr %w.p, align 4
  %done = icmp eq i32 %w, 3
  br i1 %done, label %scan.next, label %scan.waiter
scan.waiter:
  %at.barrier = icmp eq i32 %w, 1
  br i1 %at.barrier, label %scan.barrier, label %host
scan.barrier:
  %s.p = getelementptr %Thread, ptr %t, i32 0, i32 4
  %s = load i32, ptr %s.p, align 4
  %o.p = getelementptr %Thread, ptr %t, i32 0, i32 5
  %o = load i32, ptr %o.p, align 4
  %block.barrier = icmp ult i32 %o, 5 ; a grid barrier (5) is the host's
  %first = icmp eq i32 %site0, -1
  %same = icmp eq i32 %s, %site0
  %ok.site = or i1 %first, %same
  %ok = and i1 %ok.site, %block.barrier
  br i1 %ok, label %scan.count, label %host
scan.count:
  %v.p = getelementptr %Thread, ptr %t, i32 0, i32 7
  %v = load i64, ptr %v.p, align 8
  %nz = icmp ne i64 %v, 0
  %nz32 = zext i1 %nz to i32
  %ones.add = add i32 %ones, %nz32
  %waiting.inc = add i32 %waiting, 1
  br label %scan.next
scan.next:
  %waiting.next = phi i32 [ %waiting, %scan.body ], [ %waiting.inc, %scan.count ]
  %site.next = phi i32 [ %site0, %scan.body ], [ %s, %scan.count ]
  %op.next = phi i32 [ %op0, %scan.body ], [ %o, %scan.count ]
  %ones.next = phi i32 [ %ones, %scan.body ], [ %ones.add, %scan.count ]
  %i.next = add i32 %i, 1
  br label %scan
decide:
  %none = icmp eq i32 %waiting, 0
  br i1 %none, label %all.done, label %barrier
all.done:
  ret i32 0
barrier:
  %is.popc = icmp eq i32 %op0, 2
  %is.and = icmp eq i32 %op0, 3
  %is.or = icmp eq i32 %op0, 4
  %all = icmp eq i32 %ones, %waiting
  %any = icmp ne i32 %ones, 0
  %and64 = zext i1 %all to i64
  %or64 = zext i1 %any to i64
  %popc64 = zext i32 %ones to i64
  %r1 = select i1 %is.popc, i64 %popc64, i64 0
  %r2 = select i1 %is.and, i64 %and64, i64 %r1
  %result = select i1 %is.or, i64 %or64, i64 %r2
  br label %wake
wake:
  %k = phi i32 [ 0, %barrier ], [ %k.next, %wake.next ]
  %k.more = icmp ult i32 %k, %n
  br i1 %k.more, label %wake.body, label %woken
wake.body:
  %kt = getelementptr %Thread, ptr %threads, i32 %k
  %kw.p = getelementptr %Thread, ptr %kt, i32 0, i32 3
  %kw = load i32, ptr %kw.p, align 4
  %k.waits = icmp eq i32 %kw, 1
  br i1 %k.waits, label %wake.it, label %wake.next
wake.it:
  %kr.p = getelementptr %Thread, ptr %kt, i32 0, i32 9
  store i64 %result, ptr %kr.p, align 8
  store i32 4, ptr %kw.p, align 4
  br label %wake.next
wake.next:
  %k.next = add i32 %k, 1
  br label %wake
woken:
  ret i32 1
host:
  %warps = call i32 @__sim.release_warps(ptr %threads, i32 %n)
  %released = icmp ne i32 %warps, 0
  br i1 %released, label %woken, label %python
python:
  %h = call i32 @cumlir_sim_resolve(ptr %threads, i32 %n)
  ret i32 %h
}

; the common case of warp operations, released here: every thread of the block (whole warps)
; waits in one shuffle, vote, ballot or syncwarp with the full mask; 1 if released, else 0
; (the host resolves anything else, scheduling.py)
define linkonce_odr i32 @__sim.release_warps(ptr %threads, i32 %n) {
entry:
  %partial = and i32 %n, 31
  %whole = icmp eq i32 %partial, 0
  %o0.p = getelementptr %Thread, ptr %threads, i32 0, i32 5
  %o0 = load i32, ptr %o0.p, align 4
  br i1 %whole, label %scan, label %no
scan:
  %i = phi i32 [ 0, %entry ], [ %i.next, %scan.next ]
  %more = icmp ult i32 %i, %n
  br i1 %more, label %scan.body, label %ballots
scan.body:
  %t = getelementptr %Thread, ptr %threads, i32 %i
  %w.p = getelementptr %Thread, ptr %t, i32 0, i32 3
  %w = load i32, ptr %w.p, align 4
  %at.warp = icmp eq i32 %w, 2
  %m.p = getelementptr %Thread, ptr %t, i32 0, i32 6
  %m = load i32, ptr %m.p, align 4
  %full = icmp eq i32 %m, -1
  %o.p = getelementptr %Thread, ptr %t, i32 0, i32 5
  %o = load i32, ptr %o.p, align 4
  %same = icmp eq i32 %o, %o0
  %known = icmp ule i32 %o, 24 ; syncwarp, shuffles, votes, ballot
  %ok1 = and i1 %at.warp, %full
  %ok2 = and i1 %ok1, %same
  %ok = and i1 %ok2, %known
  br i1 %ok, label %scan.next, label %no
scan.next:
  %i.next = add i32 %i, 1
  br label %scan
ballots:
  ; each warp's ballot of its lanes' values, for votes and ballot
  %ballot = alloca [32 x i32], align 4
  call void @llvm.memset.p0.i64(ptr %ballot, i8 0, i64 128, i1 false)
  br label %count
count:
  %c = phi i32 [ 0, %ballots ], [ %c.next, %count ]
  %ct = getelementptr %Thread, ptr %threads, i32 %c
  %cv.p = getelementptr %Thread, ptr %ct, i32 0, i32 7
  %cv = load i64, ptr %cv.p, align 8
  %cnz = icmp ne i64 %cv, 0
  %cbit0 = zext i1 %cnz to i32
  %clane = and i32 %c, 31
  %cbit = shl i32 %cbit0, %clane
  %cwarp = lshr i32 %c, 5
  %cb.p = getelementptr [32 x i32], ptr %ballot, i32 0, i32 %cwarp
  %cb = load i32, ptr %cb.p, align 4
  %cb1 = or i32 %cb, %cbit
  store i32 %cb1, ptr %cb.p, align 4
  %c.next = add i32 %c, 1
  %c.more = icmp ult i32 %c.next, %n
  br i1 %c.more, label %count, label %results
results:
  %k = phi i32 [ 0, %count ], [ %k.next, %results ]
  %kt = getelementptr %Thread, ptr %threads, i32 %k
  %lane = and i32 %k, 31
  %base = sub i32 %k, %lane
  %warp = lshr i32 %k, 5
  %kb.p = getelementptr [32 x i32], ptr %ballot, i32 0, i32 %warp
  %kb = load i32, ptr %kb.p, align 4
  %ka.p = getelementptr %Thread, ptr %kt, i32 0, i32 8
  %operand = load i64, ptr %ka.p, align 8
  %b64 = and i64 %operand, 31
  %bv = trunc i64 %b64 to i32
  %c64 = lshr i64 %operand, 32
  %cv32 = trunc i64 %c64 to i32
  %seg0 = lshr i32 %cv32, 8
  %seg = and i32 %seg0, 31
  %clamp = and i32 %cv32, 31
  %notseg = xor i32 %seg, -1
  %hi.a = and i32 %lane, %seg
  %hi.b = and i32 %clamp, %notseg
  %high = or i32 %hi.a, %hi.b
  %low = and i32 %lane, %seg
  %up = sub i32 %lane, %bv
  %down = add i32 %lane, %bv
  %bfly = xor i32 %lane, %bv
  %idx.b = and i32 %bv, %notseg
  %idx = or i32 %low, %idx.b
  %is.up = icmp eq i32 %o0, 18
  %is.down = icmp eq i32 %o0, 19
  %is.bfly = icmp eq i32 %o0, 20
  %j1 = select i1 %is.bfly, i32 %bfly, i32 %idx
  %j2 = select i1 %is.down, i32 %down, i32 %j1
  %j = select i1 %is.up, i32 %up, i32 %j2
  %in.up = icmp sge i32 %j, %high
  %in.other = icmp sle i32 %j, %high
  %in = select i1 %is.up, i1 %in.up, i1 %in.other
  %src = select i1 %in, i32 %j, i32 %lane
  %st.i = add i32 %base, %src
  %st = getelementptr %Thread, ptr %threads, i32 %st.i
  %sv.p = getelementptr %Thread, ptr %st, i32 0, i32 7
  %sv = load i64, ptr %sv.p, align 8
  %word = and i64 %sv, 4294967295
  %in64 = zext i1 %in to i64
  %pred = shl i64 %in64, 32
  %shuffled = or i64 %word, %pred
  ; votes: all, any, uni over the warp's ballot; ballot itself
  %all = icmp eq i32 %kb, -1
  %any = icmp ne i32 %kb, 0
  %none = icmp eq i32 %kb, 0
  %uni = or i1 %all, %none
  %all64 = zext i1 %all to i64
  %any64 = zext i1 %any to i64
  %uni64 = zext i1 %uni to i64
  %ballot64 = zext i32 %kb to i64
  %is.shfl = icmp uge i32 %o0, 17
  %is.shfl2 = icmp ule i32 %o0, 20
  %shfl = and i1 %is.shfl, %is.shfl2
  %is.all = icmp eq i32 %o0, 21
  %is.any = icmp eq i32 %o0, 22
  %is.uni = icmp eq i32 %o0, 23
  %is.ballot = icmp eq i32 %o0, 24
  %r1 = select i1 %is.ballot, i64 %ballot64, i64 0
  %r2 = select i1 %is.uni, i64 %uni64, i64 %r1
  %r3 = select i1 %is.any, i64 %any64, i64 %r2
  %r4 = select i1 %is.all, i64 %all64, i64 %r3
  %r = select i1 %shfl, i64 %shuffled, i64 %r4
  %kr.p = getelementptr %Thread, ptr %kt, i32 0, i32 9
  store i64 %r, ptr %kr.p, align 8
  %k.next = add i32 %k, 1
  %k.more = icmp ult i32 %k.next, %n
  br i1 %k.more, label %results, label %wake.all
wake.all:
  %z = phi i32 [ 0, %results ], [ %z.next, %wake.all ]
  %zt = getelementptr %Thread, ptr %threads, i32 %z
  %zw.p = getelementptr %Thread, ptr %zt, i32 0, i32 3
  store i32 4, ptr %zw.p, align 4
  %z.next = add i32 %z, 1
  %z.more = icmp ult i32 %z.next, %n
  br i1 %z.more, label %wake.all, label %yes
yes:
  ret i32 1
no:
  ret i32 0
}

;; block %b of the launch, started (or resumed, %resume): 0 when its threads have ended,
; 2 when parked at a grid barrier, -2 when one trapped, -1 when the host found a problem
define internal i32 @__sim.one_block(ptr %params, ptr %threads, i32 %b, i32 %resume) {
entry:
  %n = call i32 @__sim.launch_word(i32 10)
  %gx = call i32 @__sim.launch_word(i32 6)
  %gy = call i32 @__sim.launch_word(i32 7)
  %gxy = mul i32 %gx, %gy
  %x = urem i32 %b, %gx
  %yz = udiv i32 %b, %gx
  %y = urem i32 %yz, %gy
  %z = udiv i32 %b, %gxy
  store i32 %x, ptr @__sim.launch, align 4
  %py = getelementptr [12 x i32], ptr @__sim.launch, i32 0, i32 1
  store i32 %y, ptr %py, align 4
  %pz = getelementptr [12 x i32], ptr @__sim.launch, i32 0, i32 2
  store i32 %z, ptr %pz, align 4
  %resuming = icmp ne i32 %resume, 0
  br i1 %resuming, label %run, label %fresh
fresh:
  call void @__sim.reset_threads(ptr %threads, i32 %n)
  call void @__sim.new_block()
  br label %run
run:
  %r = call i32 @__sim.block(ptr %params, ptr %threads, i32 %n, i32 %resume)
  %status = call i32 @__sim.launch_word(i32 11)
  %trap = icmp ne i32 %status, 0
  %out = select i1 %trap, i32 -2, i32 %r
  ret i32 %out
}

; the launch's blocks [first, last): the host runs ranges of them on its threads, each
; range in a copy of the module of its own (its own shared memory and thread state); at
; the first block that does not end, its index goes to the first word of %launch and its
; status is returned
define i32 @__sim.run(ptr %params, ptr %threads, ptr %launch, i32 %first, i32 %last) {
entry:
  call void @llvm.memcpy.p0.p0.i64(ptr @__sim.launch, ptr %launch, i64 48, i1 false)
  br label %blocks
blocks:
  %b = phi i32 [ %first, %entry ], [ %b.next, %block.done ]
  %more = icmp ult i32 %b, %last
  br i1 %more, label %block, label %exit
block:
  %r = call i32 @__sim.one_block(ptr %params, ptr %threads, i32 %b, i32 0)
  %stopped = icmp ne i32 %r, 0
  br i1 %stopped, label %stop, label %block.done
block.done:
  %b.next = add i32 %b, 1
  br label %blocks
stop:
  store i32 %b, ptr %launch, align 4
  ret i32 %r
exit:
  ret i32 0
}

; block %b, parked at a grid barrier, run on from where its threads the host made runnable are
define i32 @__sim.resume(ptr %params, ptr %threads, ptr %launch, i32 %b) {
  call void @llvm.memcpy.p0.p0.i64(ptr @__sim.launch, ptr %launch, i64 48, i1 false)
  %r = call i32 @__sim.one_block(ptr %params, ptr %threads, i32 %b, i32 1)
  store i32 %b, ptr %launch, align 4
  ret i32 %r
}
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)

define linkonce_odr void @__sim.reset_threads(ptr %threads, i32 %n) {
entry:
  br label %loop
loop:
  %t = phi i32 [ 0, %entry ], [ %t.next, %body ]
  %more = icmp ult i32 %t, %n
  br i1 %more, label %body, label %done
body:
  %p = getelementptr %Thread, ptr %threads, i32 %t
  store ptr null, ptr %p, align 8
  %w = getelementptr %Thread, ptr %p, i32 0, i32 3
  store i32 0, ptr %w, align 4
  %t.next = add i32 %t, 1
  br label %loop
done:
  ret void
}

; -- the checks of shared memory (accesses.py): a shadow record per shared byte, 10 words:
; writer (thread + 1; bit 30: atomic), its block serial, barriers and warp synchronizations
; passed, its site; then the same of the last reader
@__sim.shadow = global ptr null, align 8
@__sim.ranges = global [24 x i64] zeroinitializer, align 8 ; (first, end, shadow offset) of each shared variable
@__sim.range_count = global i32 0, align 4
@__sim.serial = global i32 0, align 4
@__sim.reported = global i32 0, align 4
@__sim.barriers = global [1024 x i32] zeroinitializer, align 4
@__sim.syncs = global [1024 x i32] zeroinitializer, align 4
@__sim.sync_masks = global [1024 x i32] zeroinitializer, align 4 ; the lanes of each thread's last one
declare void @cumlir_sim_report(i32, i32, i32, i32, i32, i64)

define internal ptr @__sim.count_of(ptr %counts, i32 %t) alwaysinline {
  %p = getelementptr [1024 x i32], ptr %counts, i32 0, i32 %t
  ret ptr %p
}

; each thread released counts the barrier or warp synchronization it passed, before any of
; them runs on (so that what they do next is ordered after what the others did before)
define linkonce_odr void @__sim.count_released(ptr %threads, i32 %n) {
entry:
  br label %loop
loop:
  %t = phi i32 [ 0, %entry ], [ %t.next, %next ]
  %more = icmp ult i32 %t, %n
  br i1 %more, label %body, label %done
body:
  %rec = getelementptr %Thread, ptr %threads, i32 %t
  %w.p = getelementptr %Thread, ptr %rec, i32 0, i32 3
  %w = load i32, ptr %w.p, align 4
  %released = icmp eq i32 %w, 4
  br i1 %released, label %bump, label %next
bump:
  %o.p = getelementptr %Thread, ptr %rec, i32 0, i32 5
  %o = load i32, ptr %o.p, align 4
  %warp = icmp uge i32 %o, 16
  %counts = select i1 %warp, ptr @__sim.syncs, ptr @__sim.barriers
  %p = call ptr @__sim.count_of(ptr %counts, i32 %t)
  %v = load i32, ptr %p, align 4
  %v1 = add i32 %v, 1
  store i32 %v1, ptr %p, align 4
  %m.p = getelementptr %Thread, ptr %rec, i32 0, i32 6
  %m = load i32, ptr %m.p, align 4
  %mp = call ptr @__sim.count_of(ptr @__sim.sync_masks, i32 %t)
  %old.mask = load i32, ptr %mp, align 4
  %new.mask = select i1 %warp, i32 %m, i32 %old.mask
  store i32 %new.mask, ptr %mp, align 4
  br label %next
next:
  %t.next = add i32 %t, 1
  br label %loop
done:
  ret void
}

; whether thread %other's access (after %b barriers and %s warp synchronizations of its
; own) happens before the current thread's (%me, which has passed %mine barriers): the
; current thread has passed more barriers than that (the k-th barrier of every thread is
; one, released when all have arrived), or %other has passed one since (which the current
; thread reached too), or a warp synchronization of their warp that the current thread's
; lane joined (its last one's mask names it)
define internal i1 @__sim.ordered(i32 %other, i32 %b, i32 %s, i32 %me, i32 %mine) alwaysinline {
entry:
  %after = icmp ugt i32 %mine, %b
  br i1 %after, label %yes, label %counted
counted:
  %bp = call ptr @__sim.count_of(ptr @__sim.barriers, i32 %other)
  %bn = load i32, ptr %bp, align 4
  %passed = icmp ugt i32 %bn, %b
  br i1 %passed, label %yes, label %warp
warp:
  %w1 = lshr i32 %other, 5
  %w2 = lshr i32 %me, 5
  %same = icmp eq i32 %w1, %w2
  %sp = call ptr @__sim.count_of(ptr @__sim.syncs, i32 %other)
  %sn = load i32, ptr %sp, align 4
  %synced = icmp ugt i32 %sn, %s
  %mp = call ptr @__sim.count_of(ptr @__sim.sync_masks, i32 %other)
  %mask = load i32, ptr %mp, align 4
  %lane = and i32 %me, 31
  %bit.shifted = lshr i32 %mask, %lane
  %bit = and i32 %bit.shifted, 1
  %joined = icmp ne i32 %bit, 0
  %both0 = and i1 %same, %synced
  %both = and i1 %both0, %joined
  ret i1 %both
yes:
  ret i1 true
}

define internal void @__sim.report(i32 %kind, i32 %site, i32 %me, i32 %other, i32 %other_site, i64 %address) {
  %r = load i32, ptr @__sim.reported, align 4
  %first = icmp eq i32 %r, 0
  br i1 %first, label %tell, label %done
tell:
  %serial = load i32, ptr @__sim.serial, align 4
  store i32 %serial, ptr @__sim.reported, align 4
  %status = getelementptr [12 x i32], ptr @__sim.launch, i32 0, i32 11
  store i32 1, ptr %status, align 4
  call void @cumlir_sim_report(i32 %kind, i32 %site, i32 %me, i32 %other, i32 %other_site, i64 %address)
  br label %done
done:
  ret void
}

; the shadow offset of a shared address, or -1
define internal i64 @__sim.shadow_offset(i64 %a) alwaysinline {
entry:
  %n = load i32, ptr @__sim.range_count, align 4
  br label %loop
loop:
  %k = phi i32 [ 0, %entry ], [ %k.next, %next ]
  %more = icmp ult i32 %k, %n
  br i1 %more, label %body, label %none
body:
  %i = mul i32 %k, 3
  %plo = getelementptr i64, ptr @__sim.ranges, i32 %i
  %lo = load i64, ptr %plo, align 8
  %phi.p = getelementptr i64, ptr %plo, i32 1
  %hi = load i64, ptr %phi.p, align 8
  %above = icmp uge i64 %a, %lo
  %below = icmp ult i64 %a, %hi
  %in = and i1 %above, %below
  br i1 %in, label %found, label %next
next:
  %k.next = add i32 %k, 1
  br label %loop
found:
  %po = getelementptr i64, ptr %plo, i32 2
  %o = load i64, ptr %po, align 8
  %d = sub i64 %a, %lo
  %r = add i64 %o, %d
  ret i64 %r
none:
  ret i64 -1
}

; kind: 0 read, 1 write, 2 atomic, 3 a write of the value already there (it races with
; nothing: threads storing one value to one place is a common idiom) (accesses racing with an atomic one are not reported: a
; compare-and-swap loop reads its guess plainly); of the reads since the last write, the
; record keeps one another thread may still race with (an earlier unordered one stays);
; reports: 1 uninitialised read, 2 read after another's
; write, 3 write after another's write, 4 write after another's read
declare i1 @llvm.vector.reduce.and.v10i1(<10 x i1>)

; the span of addresses from the first shared variable watched to the end of the last (the
; host sets it; empty when nothing is watched): an access outside it (global memory, the
; thread's own frame) is left at the cost of a comparison, inlined where it is made
@__sim.watched_first = global i64 0, align 8
@__sim.watched_span = global i64 0, align 8
define linkonce_odr void @__sim.access(ptr %p, i64 %size, i32 %kind, i32 %site) alwaysinline {
  %a = ptrtoint ptr %p to i64
  %first = load i64, ptr @__sim.watched_first, align 8
  %span = load i64, ptr @__sim.watched_span, align 8
  %from = sub i64 %a, %first
  %inside = icmp ult i64 %from, %span
  br i1 %inside, label %watched, label %done
watched:
  %read = icmp eq i32 %kind, 0
  br i1 %read, label %reads, label %other
reads:
  call void @__sim.read_watched(ptr %p, i64 %size, i32 %site)
  br label %done
other:
  call void @__sim.access_watched(ptr %p, i64 %size, i32 %kind, i32 %site)
  br label %done
done:
  ret void
}

; reads, the most common access, checked by code of their own (the kind folded in)
define linkonce_odr void @__sim.read_watched(ptr %p, i64 %size, i32 %site) noinline {
  call void @__sim.access_checked(ptr %p, i64 %size, i32 0, i32 %site)
  ret void
}

define linkonce_odr void @__sim.access_watched(ptr %p, i64 %size, i32 %kind, i32 %site) noinline {
  call void @__sim.access_checked(ptr %p, i64 %size, i32 %kind, i32 %site)
  ret void
}

define linkonce_odr void @__sim.access_checked(ptr %p, i64 %size, i32 %kind, i32 %site) alwaysinline {
entry:
  %shadow = load ptr, ptr @__sim.shadow, align 8
  %off = icmp eq ptr %shadow, null
  br i1 %off, label %done, label %find
find:
  %a = ptrtoint ptr %p to i64
  %base = call i64 @__sim.shadow_offset(i64 %a)
  %outside = icmp slt i64 %base, 0
  br i1 %outside, label %done, label %setup
setup:
  %t = call i32 @__sim.thread_word(i32 20)
  %me = add i32 %t, 1
  %blk = load i32, ptr @__sim.serial, align 4
  %bp = call ptr @__sim.count_of(ptr @__sim.barriers, i32 %t)
  %B = load i32, ptr %bp, align 4
  %sp = call ptr @__sim.count_of(ptr @__sim.syncs, i32 %t)
  %S = load i32, ptr %sp, align 4
  %atomic = icmp eq i32 %kind, 2
  %unchanged = icmp eq i32 %kind, 3
  %plain.write = icmp eq i32 %kind, 1
  %not.read = or i1 %plain.write, %unchanged
  %reads = xor i1 %not.read, true
  %writes = icmp ne i32 %kind, 0
  %abit = select i1 %atomic, i32 1073741824, i32 0
  %mine = or i32 %me, %abit
  ; the bytes after the first whose records were the first's end as the first's does (the
  ; checks are a function of the record): only the first byte and those that differ are
  ; worked through
  %rec0 = getelementptr [10 x i32], ptr %shadow, i64 %base
  %old0 = load <10 x i32>, ptr %rec0, align 4
  br label %byte
byte:
  %i = phi i64 [ 0, %setup ], [ %i.next, %byte.step ]
  %new0 = phi <10 x i32> [ poison, %setup ], [ %new0.next, %byte.step ]
  %more = icmp ult i64 %i, %size
  br i1 %more, label %byte.same, label %done
byte.same:
  %at = add i64 %base, %i
  %rec = getelementptr [10 x i32], ptr %shadow, i64 %at
  %later = icmp ne i64 %i, 0
  br i1 %later, label %byte.compare, label %byte.body
byte.compare:
  %cur = load <10 x i32>, ptr %rec, align 4
  %eqs = icmp eq <10 x i32> %cur, %old0
  %eq = call i1 @llvm.vector.reduce.and.v10i1(<10 x i1> %eqs)
  br i1 %eq, label %byte.as.first, label %byte.body
byte.as.first:
  store <10 x i32> %new0, ptr %rec, align 4
  br label %byte.next
byte.body:
  %wt.p = getelementptr i32, ptr %rec, i32 0
  %wt = load i32, ptr %wt.p, align 4
  %wblk.p = getelementptr i32, ptr %rec, i32 1
  %wblk = load i32, ptr %wblk.p, align 4
  %wb.p = getelementptr i32, ptr %rec, i32 2
  %ws.p = getelementptr i32, ptr %rec, i32 3
  %wsite.p = getelementptr i32, ptr %rec, i32 4
  %written = icmp eq i32 %wblk, %blk
  %writer = and i32 %wt, 1073741823
  %w.other = icmp ne i32 %writer, %me
  %w.atomic = icmp ne i32 %abit, 0
  %wt.atomic.bits = and i32 %wt, 1073741824
  %w.was.atomic = icmp ne i32 %wt.atomic.bits, 0
  %either.atomic = or i1 %w.atomic, %w.was.atomic
  %w.conflict0 = and i1 %written, %w.other
  %neither = xor i1 %either.atomic, true
  %w.conflict1 = and i1 %w.conflict0, %neither
  %changes = xor i1 %unchanged, true
  %w.conflict = and i1 %w.conflict1, %changes
  br i1 %w.conflict, label %w.check, label %after.w
w.check:
  %wb = load i32, ptr %wb.p, align 4
  %ws = load i32, ptr %ws.p, align 4
  %wo = sub i32 %writer, 1
  %w.ordered = call i1 @__sim.ordered(i32 %wo, i32 %wb, i32 %ws, i32 %t, i32 %B)
  br i1 %w.ordered, label %after.w, label %w.race
w.race:
  %wsite = load i32, ptr %wsite.p, align 4
  %w.kind = select i1 %reads, i32 2, i32 3
  %addr1 = add i64 %a, %i
  call void @__sim.report(i32 %w.kind, i32 %site, i32 %t, i32 %wo, i32 %wsite, i64 %addr1)
  br label %after.w
after.w:
  %uninit0 = xor i1 %written, true
  %uninit = and i1 %uninit0, %reads
  br i1 %uninit, label %u.report, label %after.u
u.report:
  %addr2 = add i64 %a, %i
  call void @__sim.report(i32 1, i32 %site, i32 %t, i32 -1, i32 -1, i64 %addr2)
  br label %after.u
after.u:
  %rt.p = getelementptr i32, ptr %rec, i32 5
  %rblk.p = getelementptr i32, ptr %rec, i32 6
  %rb.p = getelementptr i32, ptr %rec, i32 7
  %rs.p = getelementptr i32, ptr %rec, i32 8
  %rsite.p = getelementptr i32, ptr %rec, i32 9
  br i1 %writes, label %r.check0, label %record.read
r.check0:
  %rblk = load i32, ptr %rblk.p, align 4
  %rt.bits = load i32, ptr %rt.p, align 4
  %rt = and i32 %rt.bits, 1073741823
  %rt.atomic.bits = and i32 %rt.bits, 1073741824
  %r.was.atomic = icmp ne i32 %rt.atomic.bits, 0
  %r.either = or i1 %w.atomic, %r.was.atomic
  %r.neither = xor i1 %r.either, true
  %r.now = icmp eq i32 %rblk, %blk
  %r.other = icmp ne i32 %rt, %me
  %r.conflict0 = and i1 %r.now, %r.other
  %r.conflict1 = and i1 %r.conflict0, %r.neither
  %r.conflict = and i1 %r.conflict1, %changes
  br i1 %r.conflict, label %r.check, label %record.write
r.check:
  %rb = load i32, ptr %rb.p, align 4
  %rs = load i32, ptr %rs.p, align 4
  %ro = sub i32 %rt, 1
  %r.ordered = call i1 @__sim.ordered(i32 %ro, i32 %rb, i32 %rs, i32 %t, i32 %B)
  br i1 %r.ordered, label %record.write, label %r.race
r.race:
  %rsite = load i32, ptr %rsite.p, align 4
  %addr3 = add i64 %a, %i
  call void @__sim.report(i32 4, i32 %site, i32 %t, i32 %ro, i32 %rsite, i64 %addr3)
  br label %record.write
record.write:
  store i32 %mine, ptr %wt.p, align 4
  store i32 %blk, ptr %wblk.p, align 4
  store i32 %B, ptr %wb.p, align 4
  store i32 %S, ptr %ws.p, align 4
  store i32 %site, ptr %wsite.p, align 4
  br i1 %atomic, label %record.read, label %byte.next
record.read:
  %prev.blk = load i32, ptr %rblk.p, align 4
  %prev.bits = load i32, ptr %rt.p, align 4
  %prev = and i32 %prev.bits, 1073741823
  %prev.now = icmp eq i32 %prev.blk, %blk
  %prev.other = icmp ne i32 %prev, %me
  %prev.live = and i1 %prev.now, %prev.other
  br i1 %prev.live, label %keep.check, label %store.read
keep.check:
  %pb = load i32, ptr %rb.p, align 4
  %ps = load i32, ptr %rs.p, align 4
  %po = sub i32 %prev, 1
  %prev.ordered = call i1 @__sim.ordered(i32 %po, i32 %pb, i32 %ps, i32 %t, i32 %B)
  br i1 %prev.ordered, label %store.read, label %byte.next
store.read:
  store i32 %mine, ptr %rt.p, align 4
  store i32 %blk, ptr %rblk.p, align 4
  store i32 %B, ptr %rb.p, align 4
  store i32 %S, ptr %rs.p, align 4
  store i32 %site, ptr %rsite.p, align 4
  br label %byte.next
byte.next:
  %first.done = icmp eq i64 %i, 0
  br i1 %first.done, label %byte.new0, label %byte.step
byte.new0:
  ; read back once, not per byte (a load of what was just stored in parts waits for them)
  %new0.loaded = load <10 x i32>, ptr %rec0, align 4
  br label %byte.step
byte.step:
  %new0.next = phi <10 x i32> [ %new0.loaded, %byte.new0 ], [ %new0, %byte.next ]
  %i.next = add i64 %i, 1
  br label %byte
done:
  ret void
}

; a new block: its shadow records are those of an earlier serial, its threads' counts zero
define linkonce_odr void @__sim.new_block() {
  %s = load i32, ptr @__sim.serial, align 4
  %s1 = add i32 %s, 1
  store i32 %s1, ptr @__sim.serial, align 4
  call void @llvm.memset.p0.i64(ptr @__sim.barriers, i8 0, i64 4096, i1 false)
  call void @llvm.memset.p0.i64(ptr @__sim.syncs, i8 0, i64 4096, i1 false)
  call void @llvm.memset.p0.i64(ptr @__sim.sync_masks, i8 0, i64 4096, i1 false)
  ret void
}
declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)
