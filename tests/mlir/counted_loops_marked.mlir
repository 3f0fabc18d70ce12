// Loops counted_loops.mark marks: a single-block loop `while i < n: ...; i += step`
// whose step and bound are fixed in the loop, and not both constants, gets its
// counter's addition marked no-signed-wrap and its back edge asked to unroll eight
// times where the loop only reads memory, four times where it writes. Each case,
// separated by `// -----`, is a module of its own.

// The loop of a function: `acc += x[i]; i += step` while `i < n`, step and n arguments.
module attributes {gpu.container_module} {
  gpu.module @runtime_step_and_bound {
    // CHECK:      #[[UNROLL:[a-z_0-9]+]] = #llvm.loop_unroll<count = 8 : i32>
    // CHECK-NEXT: #[[ANNOTATION:[a-z_0-9]+]] = #llvm.loop_annotation<unroll = #[[UNROLL]]>
    // CHECK-LABEL: llvm.func @sum(
    llvm.func @sum(%x: !llvm.ptr<1>, %n: i64, %step: i64, %start: i64) -> i64 {
      %zero = llvm.mlir.constant(0 : i64) : i64
      llvm.br ^loop(%start, %zero : i64, i64)
    // CHECK: ^bb1([[I:%[0-9]+]]: i64, [[ACC:%[0-9]+]]: i64):
    ^loop(%i: i64, %acc: i64):
      %p = llvm.getelementptr %x[%i] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i64
      %v = llvm.load %p : !llvm.ptr<1> -> i64
      // only the counter's addition: the sum may wrap
      // CHECK:      llvm.add [[ACC]], {{%[0-9]+}} : i64
      %sum = llvm.add %acc, %v : i64
      // CHECK-NEXT: [[NEXT:%[0-9]+]] = llvm.add [[I]], %arg2 overflow<nsw> {cumlir.counted_loop_counter} : i64
      %next = llvm.add %i, %step : i64
      // CHECK-NEXT: [[MORE:%[0-9]+]] = llvm.icmp "slt" [[NEXT]], %arg1 : i64
      %more = llvm.icmp "slt" %next, %n : i64
      // CHECK-NEXT: llvm.cond_br [[MORE]], ^bb1([[NEXT]], {{%[0-9]+}} : i64, i64), ^bb2 {loop_annotation = #[[ANNOTATION]]}
      llvm.cond_br %more, ^loop(%next, %sum : i64, i64), ^done
    ^done:
      // CHECK: llvm.return
      llvm.return %sum : i64
    }
  }
}

// -----

// The step first in the addition (`i = step + i`).
module attributes {gpu.container_module} {
  gpu.module @step_first_in_the_addition {
    // CHECK: #[[ANNOTATION:[a-z_0-9]+]] = #llvm.loop_annotation<
    llvm.func @count(%n: i64, %step: i64) {
      %zero = llvm.mlir.constant(0 : i64) : i64
      llvm.br ^loop(%zero : i64)
    // CHECK: ^bb1([[I:%[0-9]+]]: i64):
    ^loop(%i: i64):
      // CHECK-NEXT: [[NEXT:%[0-9]+]] = llvm.add %arg1, [[I]] overflow<nsw> {cumlir.counted_loop_counter} : i64
      %next = llvm.add %step, %i : i64
      %more = llvm.icmp "slt" %next, %n : i64
      // CHECK: llvm.cond_br {{%[0-9]+}}, ^bb1([[NEXT]] : i64), ^bb2 {loop_annotation = #[[ANNOTATION]]}
      llvm.cond_br %more, ^loop(%next : i64), ^done
    ^done:
      llvm.return
    }
  }
}

// -----

// A constant step with a bound known at run time (`i += 1` while `i < n`), writing global
// memory: only loops whose step and bound are both constants are left to LLVM, and only
// grid-stride loops are judged by what they write.
module attributes {gpu.container_module} {
  gpu.module @constant_step_runtime_bound {
    // CHECK:      #[[UNROLL:[a-z_0-9]+]] = #llvm.loop_unroll<count = 4 : i32>
    // CHECK-NEXT: #[[ANNOTATION:[a-z_0-9]+]] = #llvm.loop_annotation<unroll = #[[UNROLL]]>
    llvm.func @fill(%out: !llvm.ptr<1>, %n: i64, %start: i64) {
      %one = llvm.mlir.constant(1 : i64) : i64
      %value = llvm.mlir.constant(7 : i64) : i64
      llvm.br ^loop(%start : i64)
    // CHECK: ^bb1([[I:%[0-9]+]]: i64):
    ^loop(%i: i64):
      %p = llvm.getelementptr %out[%i] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i64
      llvm.store %value, %p : i64, !llvm.ptr<1>
      // CHECK: [[NEXT:%[0-9]+]] = llvm.add [[I]], {{%[0-9]+}} overflow<nsw> {cumlir.counted_loop_counter} : i64
      %next = llvm.add %i, %one : i64
      %more = llvm.icmp "slt" %next, %n : i64
      // CHECK: llvm.cond_br {{%[0-9]+}}, ^bb1([[NEXT]] : i64), ^bb2 {loop_annotation = #[[ANNOTATION]]}
      llvm.cond_br %more, ^loop(%next : i64), ^done
    ^done:
      llvm.return
    }
  }
}

// -----

// A block's threads stepping along a row by the block's width (`j += cuda.blockDim.x`):
// many trips a thread, so the loop is marked though it writes global memory.
module attributes {gpu.container_module} {
  gpu.module @block_stride_writing_global {
    // CHECK:      #[[UNROLL:[a-z_0-9]+]] = #llvm.loop_unroll<count = 4 : i32>
    // CHECK-NEXT: #[[ANNOTATION:[a-z_0-9]+]] = #llvm.loop_annotation<unroll = #[[UNROLL]]>
    llvm.func @scale_row(%row: !llvm.ptr<1>, %n: i64) {
      %tid = nvvm.read.ptx.sreg.tid.x : i32
      %first = llvm.zext %tid : i32 to i64
      %ntid = nvvm.read.ptx.sreg.ntid.x : i32
      %width = llvm.zext %ntid : i32 to i64
      llvm.br ^loop(%first : i64)
    // CHECK: ^bb1([[J:%[0-9]+]]: i64):
    ^loop(%j: i64):
      %p = llvm.getelementptr %row[%j] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
      %v = llvm.load %p : !llvm.ptr<1> -> f32
      %w = llvm.fmul %v, %v : f32
      llvm.store %w, %p : f32, !llvm.ptr<1>
      // CHECK: [[NEXT:%[0-9]+]] = llvm.add [[J]], {{%[0-9]+}} overflow<nsw> {cumlir.counted_loop_counter} : i64
      %next = llvm.add %j, %width : i64
      %more = llvm.icmp "slt" %next, %n : i64
      // CHECK: llvm.cond_br {{%[0-9]+}}, ^bb1([[NEXT]] : i64), ^bb2 {loop_annotation = #[[ANNOTATION]]}
      llvm.cond_br %more, ^loop(%next : i64), ^done
    ^done:
      llvm.return
    }
  }
}

// -----

// The bound read in the loop from an array descriptor (pointer, length) that the loop
// carries unchanged, as lowering passes arrays round a loop (`while i < x.shape[0] - 1`):
// computed afresh on each trip from values that do not change, so fixed in the loop.
module attributes {gpu.container_module} {
  gpu.module @bound_from_a_carried_descriptor {
    // CHECK: #[[ANNOTATION:[a-z_0-9]+]] = #llvm.loop_annotation<
    llvm.func @sum_but_last(%data: !llvm.ptr<1>, %length: i64, %step: i64) -> f32 {
      %one = llvm.mlir.constant(1 : i64) : i64
      %zero = llvm.mlir.constant(0 : i64) : i64
      %fzero = llvm.mlir.constant(0.0 : f32) : f32
      %empty = llvm.mlir.poison : !llvm.struct<(ptr<1>, i64)>
      %d0 = llvm.insertvalue %data, %empty[0] : !llvm.struct<(ptr<1>, i64)>
      %x = llvm.insertvalue %length, %d0[1] : !llvm.struct<(ptr<1>, i64)>
      llvm.br ^loop(%zero, %fzero, %x : i64, f32, !llvm.struct<(ptr<1>, i64)>)
    // CHECK: ^bb1([[I:%[0-9]+]]: i64, {{%[0-9]+}}: f32, [[X:%[0-9]+]]: !llvm.struct<(ptr<1>, i64)>):
    ^loop(%i: i64, %acc: f32, %array: !llvm.struct<(ptr<1>, i64)>):
      %size = llvm.extractvalue %array[1] : !llvm.struct<(ptr<1>, i64)>
      %bound = llvm.sub %size, %one : i64
      %base = llvm.extractvalue %array[0] : !llvm.struct<(ptr<1>, i64)>
      %p = llvm.getelementptr %base[%i] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
      %v = llvm.load %p : !llvm.ptr<1> -> f32
      %sum = llvm.fadd %acc, %v : f32
      // CHECK: [[NEXT:%[0-9]+]] = llvm.add [[I]], %arg2 overflow<nsw> {cumlir.counted_loop_counter} : i64
      %next = llvm.add %i, %step : i64
      %more = llvm.icmp "slt" %next, %bound : i64
      // CHECK: llvm.cond_br {{%[0-9]+}}, ^bb1([[NEXT]], {{%[0-9]+}}, [[X]] : {{.*}}), ^bb2 {loop_annotation = #[[ANNOTATION]]}
      llvm.cond_br %more, ^loop(%next, %sum, %array : i64, f32, !llvm.struct<(ptr<1>, i64)>), ^done
    ^done:
      llvm.return %sum : f32
    }
  }
}

// -----

// A grid-stride loop that only reads (a sum): its step, the grid's width in threads, is
// computed in the loop from the launch coordinates, as lowering leaves `cuda.gridsize(1)`.
module attributes {gpu.container_module} {
  gpu.module @grid_stride_reading_only {
    // CHECK:      #[[UNROLL:[a-z_0-9]+]] = #llvm.loop_unroll<count = 8 : i32>
    // CHECK-NEXT: #[[ANNOTATION:[a-z_0-9]+]] = #llvm.loop_annotation<unroll = #[[UNROLL]]>
    llvm.func @grid_sum(%x: !llvm.ptr<1>, %n: i64, %first: i64) -> f32 {
      %fzero = llvm.mlir.constant(0.0 : f32) : f32
      llvm.br ^loop(%first, %fzero : i64, f32)
    // CHECK: ^bb1([[I:%[0-9]+]]: i64, {{%[0-9]+}}: f32):
    ^loop(%i: i64, %acc: f32):
      %p = llvm.getelementptr %x[%i] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
      %v = llvm.load %p : !llvm.ptr<1> -> f32
      %sum = llvm.fadd %acc, %v : f32
      %ntid = nvvm.read.ptx.sreg.ntid.x : i32
      %width = llvm.zext %ntid : i32 to i64
      %nctaid = nvvm.read.ptx.sreg.nctaid.x : i32
      %blocks = llvm.zext %nctaid : i32 to i64
      %stride = llvm.mul %width, %blocks : i64
      // CHECK: [[NEXT:%[0-9]+]] = llvm.add [[I]], {{%[0-9]+}} overflow<nsw> {cumlir.counted_loop_counter} : i64
      %next = llvm.add %i, %stride : i64
      %more = llvm.icmp "slt" %next, %n : i64
      // CHECK: llvm.cond_br {{%[0-9]+}}, ^bb1([[NEXT]], {{%[0-9]+}} : i64, f32), ^bb2 {loop_annotation = #[[ANNOTATION]]}
      llvm.cond_br %more, ^loop(%next, %sum : i64, f32), ^done
    ^done:
      llvm.return %sum : f32
    }
  }
}

// -----

// A grid-stride loop counting into a block's bins in shared memory (a histogram): the
// atomic's address is followed back through an integer round trip, the array descriptor
// the loop carries, and a cast to the generic address space, to the shared array.
module attributes {gpu.container_module} {
  gpu.module @grid_stride_writing_shared {
    llvm.mlir.global private @bins() {addr_space = 3 : i32} : !llvm.array<64 x i32>
    // CHECK:      #[[UNROLL:[a-z_0-9]+]] = #llvm.loop_unroll<count = 4 : i32>
    // CHECK-NEXT: #[[ANNOTATION:[a-z_0-9]+]] = #llvm.loop_annotation<unroll = #[[UNROLL]]>
    llvm.func @histogram(%data: !llvm.ptr<1>, %n: i64, %first: i64) {
      %one = llvm.mlir.constant(1 : i32) : i32
      %shared = llvm.mlir.addressof @bins : !llvm.ptr<3>
      %generic = llvm.addrspacecast %shared : !llvm.ptr<3> to !llvm.ptr
      %empty = llvm.mlir.poison : !llvm.struct<(ptr, i64)>
      %b0 = llvm.insertvalue %generic, %empty[0] : !llvm.struct<(ptr, i64)>
      %length = llvm.mlir.constant(64 : i64) : i64
      %bins = llvm.insertvalue %length, %b0[1] : !llvm.struct<(ptr, i64)>
      %ntid = nvvm.read.ptx.sreg.ntid.x : i32
      %width = llvm.zext %ntid : i32 to i64
      %nctaid = nvvm.read.ptx.sreg.nctaid.x : i32
      %blocks = llvm.zext %nctaid : i32 to i64
      %stride = llvm.mul %width, %blocks : i64
      llvm.br ^loop(%bins, %first, %stride : !llvm.struct<(ptr, i64)>, i64, i64)
    // CHECK: ^bb1({{%[0-9]+}}: !llvm.struct<(ptr, i64)>, [[I:%[0-9]+]]: i64, [[STRIDE:%[0-9]+]]: i64):
    ^loop(%array: !llvm.struct<(ptr, i64)>, %i: i64, %step: i64):
      %p = llvm.getelementptr %data[%i] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i8
      %byte = llvm.load %p : !llvm.ptr<1> -> i8
      %bin = llvm.zext %byte : i8 to i64
      %base = llvm.extractvalue %array[0] : !llvm.struct<(ptr, i64)>
      %address = llvm.ptrtoint %base : !llvm.ptr to i64
      %again = llvm.inttoptr %address : i64 to !llvm.ptr
      %q = llvm.getelementptr %again[%bin] : (!llvm.ptr, i64) -> !llvm.ptr, i32
      %old = llvm.atomicrmw add %q, %one monotonic : !llvm.ptr, i32
      // CHECK: [[NEXT:%[0-9]+]] = llvm.add [[I]], [[STRIDE]] overflow<nsw> {cumlir.counted_loop_counter} : i64
      %next = llvm.add %i, %step : i64
      %more = llvm.icmp "slt" %next, %n : i64
      // CHECK: llvm.cond_br {{%[0-9]+}}, ^bb1({{%[0-9]+}}, [[NEXT]], [[STRIDE]] : {{.*}}), ^bb2 {loop_annotation = #[[ANNOTATION]]}
      llvm.cond_br %more, ^loop(%array, %next, %step : !llvm.struct<(ptr, i64)>, i64, i64), ^done
    ^done:
      llvm.return
    }
  }
}

// -----

// A grid-stride loop writing a thread's local array (through a generic pointer cast
// from the local address space), reading global memory.
module attributes {gpu.container_module} {
  gpu.module @grid_stride_writing_local {
    // CHECK: #[[ANNOTATION:[a-z_0-9]+]] = #llvm.loop_annotation<
    llvm.func @local_copy(%x: !llvm.ptr<1>, %n: i64, %first: i64, %width: i64) {
      %eight = llvm.mlir.constant(8 : i64) : i64
      %seven = llvm.mlir.constant(7 : i64) : i64
      %local = llvm.alloca %eight x f32 : (i64) -> !llvm.ptr<5>
      %generic = llvm.addrspacecast %local : !llvm.ptr<5> to !llvm.ptr
      %nctaid = nvvm.read.ptx.sreg.nctaid.x : i32
      %blocks = llvm.zext %nctaid : i32 to i64
      %step = llvm.mul %width, %blocks : i64
      llvm.br ^loop(%first : i64)
    // CHECK: ^bb1([[I:%[0-9]+]]: i64):
    ^loop(%i: i64):
      %p = llvm.getelementptr %x[%i] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
      %v = llvm.load %p : !llvm.ptr<1> -> f32
      %slot = llvm.and %i, %seven : i64
      %q = llvm.getelementptr %generic[%slot] : (!llvm.ptr, i64) -> !llvm.ptr, f32
      llvm.store %v, %q : f32, !llvm.ptr
      // CHECK: [[NEXT:%[0-9]+]] = llvm.add [[I]], {{%[0-9]+}} overflow<nsw> {cumlir.counted_loop_counter} : i64
      %next = llvm.add %i, %step : i64
      %more = llvm.icmp "slt" %next, %n : i64
      // CHECK: llvm.cond_br {{%[0-9]+}}, ^bb1([[NEXT]] : i64), ^bb2 {loop_annotation = #[[ANNOTATION]]}
      llvm.cond_br %more, ^loop(%next : i64), ^done
    ^done:
      llvm.return
    }
  }
}

// -----

// Two loops in one function: a grid-stride copy into global memory (left alone), then a
// sum stepping by an argument (marked). Only the second is touched.
module attributes {gpu.container_module} {
  gpu.module @one_loop_of_two {
    // CHECK: #[[ANNOTATION:[a-z_0-9]+]] = #llvm.loop_annotation<
    // CHECK-LABEL: llvm.func @copy_then_sum(
    llvm.func @copy_then_sum(%x: !llvm.ptr<1>, %out: !llvm.ptr<1>, %n: i64, %first: i64, %step: i64) -> f32 {
      %fzero = llvm.mlir.constant(0.0 : f32) : f32
      %ntid = nvvm.read.ptx.sreg.ntid.x : i32
      %width = llvm.zext %ntid : i32 to i64
      %nctaid = nvvm.read.ptx.sreg.nctaid.x : i32
      %blocks = llvm.zext %nctaid : i32 to i64
      %stride = llvm.mul %width, %blocks : i64
      llvm.br ^copy(%first : i64)
    // CHECK: ^bb1({{%[0-9]+}}: i64):
    // CHECK-NOT: overflow<nsw>
    // CHECK-NOT: loop_annotation
    // CHECK: ^bb2({{%[0-9]+}}: i64, {{%[0-9]+}}: f32):
    ^copy(%i: i64):
      %p = llvm.getelementptr %x[%i] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
      %v = llvm.load %p : !llvm.ptr<1> -> f32
      %q = llvm.getelementptr %out[%i] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
      llvm.store %v, %q : f32, !llvm.ptr<1>
      %i_next = llvm.add %i, %stride : i64
      %copying = llvm.icmp "slt" %i_next, %n : i64
      llvm.cond_br %copying, ^copy(%i_next : i64), ^sum(%first, %fzero : i64, f32)
    ^sum(%j: i64, %acc: f32):
      %r = llvm.getelementptr %out[%j] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
      %w = llvm.load %r : !llvm.ptr<1> -> f32
      %total = llvm.fadd %acc, %w : f32
      // CHECK: llvm.add {{%[0-9]+}}, %arg4 overflow<nsw> {cumlir.counted_loop_counter} : i64
      %j_next = llvm.add %j, %step : i64
      %summing = llvm.icmp "slt" %j_next, %n : i64
      // CHECK: llvm.cond_br {{.*}} {loop_annotation = #[[ANNOTATION]]}
      llvm.cond_br %summing, ^sum(%j_next, %total : i64, f32), ^done
    ^done:
      llvm.return %total : f32
    }
  }
}

// -----

// A loop calling libdevice (`total += math.exp(x[i] - m)`): a routine that only computes,
// so the loop only reads.
module attributes {gpu.container_module} {
  gpu.module @reading_with_a_libdevice_call {
    llvm.func @__nv_expf(f32) -> f32
    // CHECK:      #[[UNROLL:[a-z_0-9]+]] = #llvm.loop_unroll<count = 8 : i32>
    // CHECK-NEXT: #[[ANNOTATION:[a-z_0-9]+]] = #llvm.loop_annotation<unroll = #[[UNROLL]]>
    llvm.func @exp_sum(%x: !llvm.ptr<1>, %n: i64, %step: i64) -> f32 {
      %zero = llvm.mlir.constant(0 : i64) : i64
      %fzero = llvm.mlir.constant(0.0 : f32) : f32
      llvm.br ^loop(%zero, %fzero : i64, f32)
    ^loop(%i: i64, %acc: f32):
      %p = llvm.getelementptr %x[%i] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
      %v = llvm.load %p : !llvm.ptr<1> -> f32
      %e = llvm.call @__nv_expf(%v) : (f32) -> f32
      %sum = llvm.fadd %acc, %e : f32
      %next = llvm.add %i, %step : i64
      %more = llvm.icmp "slt" %next, %n : i64
      // CHECK: llvm.cond_br {{%[0-9]+}}, ^bb1({{%[0-9]+}}, {{%[0-9]+}} : i64, f32), ^bb2 {loop_annotation = #[[ANNOTATION]]}
      llvm.cond_br %more, ^loop(%next, %sum : i64, f32), ^done
    ^done:
      llvm.return %sum : f32
    }
  }
}

// -----

// A loop calling a function that is not libdevice's (one left out of line): it may write
// memory, so four copies.
module attributes {gpu.container_module} {
  gpu.module @calling_another_function {
    llvm.func @record(f32)
    // CHECK:      #[[UNROLL:[a-z_0-9]+]] = #llvm.loop_unroll<count = 4 : i32>
    // CHECK-NEXT: #[[ANNOTATION:[a-z_0-9]+]] = #llvm.loop_annotation<unroll = #[[UNROLL]]>
    llvm.func @each(%x: !llvm.ptr<1>, %n: i64, %step: i64) {
      %zero = llvm.mlir.constant(0 : i64) : i64
      llvm.br ^loop(%zero : i64)
    ^loop(%i: i64):
      %p = llvm.getelementptr %x[%i] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
      %v = llvm.load %p : !llvm.ptr<1> -> f32
      llvm.call @record(%v) : (f32) -> ()
      %next = llvm.add %i, %step : i64
      %more = llvm.icmp "slt" %next, %n : i64
      // CHECK: llvm.cond_br {{%[0-9]+}}, ^bb1({{%[0-9]+}} : i64), ^bb2 {loop_annotation = #[[ANNOTATION]]}
      llvm.cond_br %more, ^loop(%next : i64), ^done
    ^done:
      llvm.return
    }
  }
}
