// Loops counted_loops.mark leaves alone: the counter's addition keeps no flags, the
// back edge no annotation (its CHECK line matches to the line's end), and the module
// comes back exactly as it went in. Each case, separated by `// -----`, is a module of
// its own.

// Constant step and bound (`for k in range(8)`): LLVM counts the loop itself and
// unrolls it, fully or not, as it judges.
module attributes {gpu.container_module} {
  gpu.module @constant_step_and_bound {
    llvm.func @eight(%x: !llvm.ptr<1>) -> f64 {
      %zero = llvm.mlir.constant(0 : i64) : i64
      %one = llvm.mlir.constant(1 : i64) : i64
      %eight = llvm.mlir.constant(8 : i64) : i64
      %fzero = llvm.mlir.constant(0.0 : f64) : f64
      llvm.br ^loop(%zero, %fzero : i64, f64)
    // CHECK: ^bb1([[K:%[0-9]+]]: i64, {{%[0-9]+}}: f64):
    ^loop(%k: i64, %acc: f64):
      %p = llvm.getelementptr %x[%k] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f64
      %v = llvm.load %p : !llvm.ptr<1> -> f64
      %sum = llvm.fadd %acc, %v : f64
      // CHECK: [[NEXT:%[0-9]+]] = llvm.add [[K]], {{%[0-9]+}} : i64
      %next = llvm.add %k, %one : i64
      %more = llvm.icmp "slt" %next, %eight : i64
      // CHECK: llvm.cond_br {{%[0-9]+}}, ^bb1([[NEXT]], {{%[0-9]+}} : i64, f64), ^bb2{{$}}
      llvm.cond_br %more, ^loop(%next, %sum : i64, f64), ^done
    ^done:
      llvm.return %sum : f64
    }
  }
}

// -----

// `while i <= n`: only `<` is marked (LLVM cannot count a `<=` against a bound computed
// at run time).
module attributes {gpu.container_module} {
  gpu.module @less_or_equal {
    llvm.func @count(%n: i64, %step: i64) {
      %zero = llvm.mlir.constant(0 : i64) : i64
      llvm.br ^loop(%zero : i64)
    // CHECK: ^bb1([[I:%[0-9]+]]: i64):
    ^loop(%i: i64):
      // CHECK-NEXT: [[NEXT:%[0-9]+]] = llvm.add [[I]], %arg1 : i64
      %next = llvm.add %i, %step : i64
      // CHECK-NEXT: llvm.icmp "sle" [[NEXT]], %arg0 : i64
      %more = llvm.icmp "sle" %next, %n : i64
      // CHECK-NEXT: llvm.cond_br {{%[0-9]+}}, ^bb1([[NEXT]] : i64), ^bb2{{$}}
      llvm.cond_br %more, ^loop(%next : i64), ^done
    ^done:
      llvm.return
    }
  }
}

// -----

// An unsigned comparison: the counter's signed no-wrap flag would say nothing of it.
module attributes {gpu.container_module} {
  gpu.module @unsigned_less {
    llvm.func @count(%n: i64, %step: i64) {
      %zero = llvm.mlir.constant(0 : i64) : i64
      llvm.br ^loop(%zero : i64)
    // CHECK: ^bb1([[I:%[0-9]+]]: i64):
    ^loop(%i: i64):
      // CHECK-NEXT: [[NEXT:%[0-9]+]] = llvm.add [[I]], %arg1 : i64
      %next = llvm.add %i, %step : i64
      // CHECK-NEXT: llvm.icmp "ult" [[NEXT]], %arg0 : i64
      %more = llvm.icmp "ult" %next, %n : i64
      // CHECK-NEXT: llvm.cond_br {{%[0-9]+}}, ^bb1([[NEXT]] : i64), ^bb2{{$}}
      llvm.cond_br %more, ^loop(%next : i64), ^done
    ^done:
      llvm.return
    }
  }
}

// -----

// The loop goes round while the comparison fails (`while not i < n`): the back edge is
// the branch's second successor (the first, the exit, takes the counter too).
module attributes {gpu.container_module} {
  gpu.module @round_while_not_less {
    llvm.func @count(%n: i64, %step: i64) -> i64 {
      %zero = llvm.mlir.constant(0 : i64) : i64
      llvm.br ^loop(%zero : i64)
    // CHECK: ^bb1([[I:%[0-9]+]]: i64):
    ^loop(%i: i64):
      // CHECK-NEXT: [[NEXT:%[0-9]+]] = llvm.add [[I]], %arg1 : i64
      %next = llvm.add %i, %step : i64
      %done = llvm.icmp "slt" %next, %n : i64
      // CHECK: llvm.cond_br {{%[0-9]+}}, ^bb2([[NEXT]] : i64), ^bb1([[NEXT]] : i64){{$}}
      llvm.cond_br %done, ^exit(%next : i64), ^loop(%next : i64)
    ^exit(%last: i64):
      llvm.return %last : i64
    }
  }
}

// -----

// The value compared is not the one carried round: the counter goes on from `i + step + 1`.
module attributes {gpu.container_module} {
  gpu.module @counter_changed_on_the_way_round {
    llvm.func @count(%n: i64, %step: i64) {
      %zero = llvm.mlir.constant(0 : i64) : i64
      %one = llvm.mlir.constant(1 : i64) : i64
      llvm.br ^loop(%zero : i64)
    // CHECK: ^bb1([[I:%[0-9]+]]: i64):
    ^loop(%i: i64):
      // CHECK-NEXT: [[NEXT:%[0-9]+]] = llvm.add [[I]], %arg1 : i64
      %next = llvm.add %i, %step : i64
      // CHECK-NEXT: [[SKIP:%[0-9]+]] = llvm.add [[NEXT]], {{%[0-9]+}} : i64
      %skip = llvm.add %next, %one : i64
      %more = llvm.icmp "slt" %next, %n : i64
      // CHECK: llvm.cond_br {{%[0-9]+}}, ^bb1([[SKIP]] : i64), ^bb2{{$}}
      llvm.cond_br %more, ^loop(%skip : i64), ^done
    ^done:
      llvm.return
    }
  }
}

// -----

// A bound carried round the loop and lowered on each trip (`n -= 1`).
module attributes {gpu.container_module} {
  gpu.module @bound_lowered_in_the_loop {
    llvm.func @count(%n: i64, %step: i64) {
      %zero = llvm.mlir.constant(0 : i64) : i64
      %one = llvm.mlir.constant(1 : i64) : i64
      llvm.br ^loop(%zero, %n : i64, i64)
    // CHECK: ^bb1([[I:%[0-9]+]]: i64, [[M:%[0-9]+]]: i64):
    ^loop(%i: i64, %m: i64):
      // CHECK-NEXT: [[LOWER:%[0-9]+]] = llvm.sub [[M]], {{%[0-9]+}} : i64
      %lower = llvm.sub %m, %one : i64
      // CHECK-NEXT: [[NEXT:%[0-9]+]] = llvm.add [[I]], %arg1 : i64
      %next = llvm.add %i, %step : i64
      %more = llvm.icmp "slt" %next, %lower : i64
      // CHECK: llvm.cond_br {{%[0-9]+}}, ^bb1([[NEXT]], [[LOWER]] : i64, i64), ^bb2{{$}}
      llvm.cond_br %more, ^loop(%next, %lower : i64, i64), ^done
    ^done:
      llvm.return
    }
  }
}

// -----

// A bound loaded from memory on each trip: the loop may change it.
module attributes {gpu.container_module} {
  gpu.module @bound_loaded_in_the_loop {
    llvm.func @count(%limit: !llvm.ptr<1>, %step: i64) {
      %zero = llvm.mlir.constant(0 : i64) : i64
      llvm.br ^loop(%zero : i64)
    // CHECK: ^bb1([[I:%[0-9]+]]: i64):
    ^loop(%i: i64):
      %n = llvm.load %limit : !llvm.ptr<1> -> i64
      // CHECK: [[NEXT:%[0-9]+]] = llvm.add [[I]], %arg1 : i64
      %next = llvm.add %i, %step : i64
      %more = llvm.icmp "slt" %next, %n : i64
      // CHECK: llvm.cond_br {{%[0-9]+}}, ^bb1([[NEXT]] : i64), ^bb2{{$}}
      llvm.cond_br %more, ^loop(%next : i64), ^done
    ^done:
      llvm.return
    }
  }
}

// -----

// A step carried round the loop and doubled on each trip.
module attributes {gpu.container_module} {
  gpu.module @step_doubled_in_the_loop {
    llvm.func @count(%n: i64, %step: i64) {
      %zero = llvm.mlir.constant(0 : i64) : i64
      llvm.br ^loop(%zero, %step : i64, i64)
    // CHECK: ^bb1([[I:%[0-9]+]]: i64, [[S:%[0-9]+]]: i64):
    ^loop(%i: i64, %s: i64):
      // CHECK-NEXT: [[NEXT:%[0-9]+]] = llvm.add [[I]], [[S]] : i64
      %next = llvm.add %i, %s : i64
      // CHECK-NEXT: [[DOUBLE:%[0-9]+]] = llvm.add [[S]], [[S]] : i64
      %double = llvm.add %s, %s : i64
      %more = llvm.icmp "slt" %next, %n : i64
      // CHECK: llvm.cond_br {{%[0-9]+}}, ^bb1([[NEXT]], [[DOUBLE]] : i64, i64), ^bb2{{$}}
      llvm.cond_br %more, ^loop(%next, %double : i64, i64), ^done
    ^done:
      llvm.return
    }
  }
}

// -----

// A loop of two blocks (an `if` in its body): not a single-block loop.
module attributes {gpu.container_module} {
  gpu.module @two_blocks {
    llvm.func @positive_sum(%x: !llvm.ptr<1>, %n: i64, %step: i64) -> i64 {
      %zero = llvm.mlir.constant(0 : i64) : i64
      llvm.br ^loop(%zero, %zero : i64, i64)
    ^loop(%i: i64, %acc: i64):
      %p = llvm.getelementptr %x[%i] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i64
      %v = llvm.load %p : !llvm.ptr<1> -> i64
      %positive = llvm.icmp "sgt" %v, %zero : i64
      llvm.cond_br %positive, ^add, ^latch(%acc : i64)
    ^add:
      %sum = llvm.add %acc, %v : i64
      llvm.br ^latch(%sum : i64)
    // CHECK: ^bb3([[ACC:%[0-9]+]]: i64):
    ^latch(%kept: i64):
      // CHECK-NEXT: [[NEXT:%[0-9]+]] = llvm.add {{%[0-9]+}}, %arg2 : i64
      %next = llvm.add %i, %step : i64
      %more = llvm.icmp "slt" %next, %n : i64
      // CHECK: llvm.cond_br {{%[0-9]+}}, ^bb1([[NEXT]], [[ACC]] : i64, i64), ^bb4{{$}}
      llvm.cond_br %more, ^loop(%next, %kept : i64, i64), ^done
    ^done:
      llvm.return %kept : i64
    }
  }
}

// -----

// A back edge annotated already (here: not to unroll) keeps its annotation alone.
#no_unroll = #llvm.loop_annotation<unroll = <disable = true>>
module attributes {gpu.container_module} {
  gpu.module @annotated_already {
    // CHECK:      #[[DISABLE:[a-z_0-9]+]] = #llvm.loop_unroll<disable = true>
    // CHECK-NEXT: #[[ANNOTATION:[a-z_0-9]+]] = #llvm.loop_annotation<unroll = #[[DISABLE]]>
    llvm.func @count(%n: i64, %step: i64) {
      %zero = llvm.mlir.constant(0 : i64) : i64
      llvm.br ^loop(%zero : i64)
    // CHECK: ^bb1([[I:%[0-9]+]]: i64):
    ^loop(%i: i64):
      // CHECK-NEXT: [[NEXT:%[0-9]+]] = llvm.add [[I]], %arg1 : i64
      %next = llvm.add %i, %step : i64
      %more = llvm.icmp "slt" %next, %n : i64
      // CHECK: llvm.cond_br {{%[0-9]+}}, ^bb1([[NEXT]] : i64), ^bb2 {loop_annotation = #[[ANNOTATION]]}{{$}}
      llvm.cond_br %more, ^loop(%next : i64), ^done {loop_annotation = #no_unroll}
    ^done:
      llvm.return
    }
  }
}

// -----

// A grid-stride copy (`o[i] = x[i]; i += cuda.gridsize(1)`): its step, carried round as
// lowering carries it, is the grid's width, and it stores to global memory. Four copies
// of the body could not issue their loads together, and the count would cost each
// thread, which runs few trips, a division.
module attributes {gpu.container_module} {
  gpu.module @grid_stride_writing_global {
    llvm.func @copy(%x: !llvm.ptr<1>, %out: !llvm.ptr<1>, %n: i64, %first: i64) {
      %ntid = nvvm.read.ptx.sreg.ntid.x : i32
      %width = llvm.zext %ntid : i32 to i64
      %nctaid = nvvm.read.ptx.sreg.nctaid.x : i32
      %blocks = llvm.zext %nctaid : i32 to i64
      %stride = llvm.mul %width, %blocks : i64
      llvm.br ^loop(%first, %stride : i64, i64)
    // CHECK: ^bb1([[I:%[0-9]+]]: i64, [[STRIDE:%[0-9]+]]: i64):
    ^loop(%i: i64, %step: i64):
      %p = llvm.getelementptr %x[%i] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
      %v = llvm.load %p : !llvm.ptr<1> -> f32
      %q = llvm.getelementptr %out[%i] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
      llvm.store %v, %q : f32, !llvm.ptr<1>
      // CHECK: [[NEXT:%[0-9]+]] = llvm.add [[I]], [[STRIDE]] : i64
      %next = llvm.add %i, %step : i64
      %more = llvm.icmp "slt" %next, %n : i64
      // CHECK: llvm.cond_br {{%[0-9]+}}, ^bb1([[NEXT]], [[STRIDE]] : i64, i64), ^bb2{{$}}
      llvm.cond_br %more, ^loop(%next, %step : i64, i64), ^done
    ^done:
      llvm.return
    }
  }
}

// -----

// A grid-stride loop storing through a generic pointer the kernel was given: where it
// points cannot be told, so it counts as global memory.
module attributes {gpu.container_module} {
  gpu.module @grid_stride_writing_unknown_memory {
    llvm.func @fill(%out: !llvm.ptr, %n: i64, %first: i64) {
      %value = llvm.mlir.constant(7 : i64) : i64
      llvm.br ^loop(%first : i64)
    // CHECK: ^bb1([[I:%[0-9]+]]: i64):
    ^loop(%i: i64):
      %q = llvm.getelementptr %out[%i] : (!llvm.ptr, i64) -> !llvm.ptr, i64
      llvm.store %value, %q : i64, !llvm.ptr
      %ntid = nvvm.read.ptx.sreg.ntid.x : i32
      %width = llvm.zext %ntid : i32 to i64
      %nctaid = nvvm.read.ptx.sreg.nctaid.x : i32
      %blocks = llvm.zext %nctaid : i32 to i64
      %stride = llvm.mul %width, %blocks : i64
      // CHECK: [[NEXT:%[0-9]+]] = llvm.add [[I]], {{%[0-9]+}} : i64
      %next = llvm.add %i, %stride : i64
      %more = llvm.icmp "slt" %next, %n : i64
      // CHECK: llvm.cond_br {{%[0-9]+}}, ^bb1([[NEXT]] : i64), ^bb2{{$}}
      llvm.cond_br %more, ^loop(%next : i64), ^done
    ^done:
      llvm.return
    }
  }
}

// -----

// A grid-stride histogram in global memory: the atomic's address, followed back through
// the array descriptor the loop carries and a cast to the generic address space, is
// global.
module attributes {gpu.container_module} {
  gpu.module @grid_stride_atomics_on_global {
    llvm.func @histogram(%data: !llvm.ptr<1>, %counts: !llvm.ptr<1>, %n: i64, %first: i64) {
      %one = llvm.mlir.constant(1 : i32) : i32
      %generic = llvm.addrspacecast %counts : !llvm.ptr<1> to !llvm.ptr
      %empty = llvm.mlir.poison : !llvm.struct<(ptr, i64)>
      %b0 = llvm.insertvalue %generic, %empty[0] : !llvm.struct<(ptr, i64)>
      %length = llvm.mlir.constant(256 : i64) : i64
      %bins = llvm.insertvalue %length, %b0[1] : !llvm.struct<(ptr, i64)>
      %ntid = nvvm.read.ptx.sreg.ntid.x : i32
      %width = llvm.zext %ntid : i32 to i64
      %nctaid = nvvm.read.ptx.sreg.nctaid.x : i32
      %blocks = llvm.zext %nctaid : i32 to i64
      %stride = llvm.mul %width, %blocks : i64
      llvm.br ^loop(%bins, %first : !llvm.struct<(ptr, i64)>, i64)
    // CHECK: ^bb1({{%[0-9]+}}: !llvm.struct<(ptr, i64)>, [[I:%[0-9]+]]: i64):
    ^loop(%array: !llvm.struct<(ptr, i64)>, %i: i64):
      %p = llvm.getelementptr %data[%i] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i8
      %byte = llvm.load %p : !llvm.ptr<1> -> i8
      %bin = llvm.zext %byte : i8 to i64
      %base = llvm.extractvalue %array[0] : !llvm.struct<(ptr, i64)>
      %q = llvm.getelementptr %base[%bin] : (!llvm.ptr, i64) -> !llvm.ptr, i32
      %old = llvm.atomicrmw add %q, %one monotonic : !llvm.ptr, i32
      // CHECK: [[NEXT:%[0-9]+]] = llvm.add [[I]], {{%[0-9]+}} : i64
      %next = llvm.add %i, %stride : i64
      %more = llvm.icmp "slt" %next, %n : i64
      // CHECK: llvm.cond_br {{%[0-9]+}}, ^bb1({{%[0-9]+}}, [[NEXT]] : {{.*}}), ^bb2{{$}}
      llvm.cond_br %more, ^loop(%array, %next : !llvm.struct<(ptr, i64)>, i64), ^done
    ^done:
      llvm.return
    }
  }
}

// -----

// A grid-stride loop writing through one of two pointers it swaps on each trip (`a, b =
// b, a`): the pointer written is shared memory on the first trip only, global memory on
// the next.
module attributes {gpu.container_module} {
  gpu.module @grid_stride_writing_swapped_pointers {
    llvm.mlir.global private @scratch() {addr_space = 3 : i32} : !llvm.array<256 x f32>
    llvm.func @ping_pong(%x: !llvm.ptr<1>, %n: i64, %first: i64) {
      %value = llvm.mlir.constant(1.0 : f32) : f32
      %shared = llvm.mlir.addressof @scratch : !llvm.ptr<3>
      %in_shared = llvm.addrspacecast %shared : !llvm.ptr<3> to !llvm.ptr
      %in_global = llvm.addrspacecast %x : !llvm.ptr<1> to !llvm.ptr
      %ntid = nvvm.read.ptx.sreg.ntid.x : i32
      %width = llvm.zext %ntid : i32 to i64
      %nctaid = nvvm.read.ptx.sreg.nctaid.x : i32
      %blocks = llvm.zext %nctaid : i32 to i64
      %stride = llvm.mul %width, %blocks : i64
      llvm.br ^loop(%first, %in_shared, %in_global : i64, !llvm.ptr, !llvm.ptr)
    // CHECK: ^bb1([[I:%[0-9]+]]: i64, [[A:%[0-9]+]]: !llvm.ptr, [[B:%[0-9]+]]: !llvm.ptr):
    ^loop(%i: i64, %a: !llvm.ptr, %b: !llvm.ptr):
      %slot = llvm.getelementptr %a[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
      llvm.store %value, %slot : f32, !llvm.ptr
      // CHECK: [[NEXT:%[0-9]+]] = llvm.add [[I]], {{%[0-9]+}} : i64
      %next = llvm.add %i, %stride : i64
      %more = llvm.icmp "slt" %next, %n : i64
      // CHECK: llvm.cond_br {{%[0-9]+}}, ^bb1([[NEXT]], [[B]], [[A]] : i64, !llvm.ptr, !llvm.ptr), ^bb2{{$}}
      llvm.cond_br %more, ^loop(%next, %b, %a : i64, !llvm.ptr, !llvm.ptr), ^done
    ^done:
      llvm.return
    }
  }
}

// -----

// A grid-stride copy whose store is inline assembly (`cuda.stcs`, a store with a cache
// hint): it writes global memory as a plain store would, so it is left alone as well.
module attributes {gpu.container_module} {
  gpu.module @grid_stride_writing_through_inline_assembly {
    llvm.func @copy(%x: !llvm.ptr<1>, %out: !llvm.ptr<1>, %n: i64, %first: i64) {
      %ntid = nvvm.read.ptx.sreg.ntid.x : i32
      %width = llvm.zext %ntid : i32 to i64
      %nctaid = nvvm.read.ptx.sreg.nctaid.x : i32
      %blocks = llvm.zext %nctaid : i32 to i64
      %stride = llvm.mul %width, %blocks : i64
      llvm.br ^loop(%first : i64)
    // CHECK: ^bb1([[I:%[0-9]+]]: i64):
    ^loop(%i: i64):
      %p = llvm.getelementptr %x[%i] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
      %v = llvm.load %p : !llvm.ptr<1> -> f32
      %q = llvm.getelementptr %out[%i] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
      llvm.inline_asm has_side_effects "st.global.cs.f32 [$0], $1;", "l,f" %q, %v : (!llvm.ptr<1>, f32) -> ()
      // CHECK: [[NEXT:%[0-9]+]] = llvm.add [[I]], {{%[0-9]+}} : i64
      %next = llvm.add %i, %stride : i64
      %more = llvm.icmp "slt" %next, %n : i64
      // CHECK: llvm.cond_br {{%[0-9]+}}, ^bb1([[NEXT]] : i64), ^bb2{{$}}
      llvm.cond_br %more, ^loop(%next : i64), ^done
    ^done:
      llvm.return
    }
  }
}
