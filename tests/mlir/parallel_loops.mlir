// scf.parallel loops of kernels that parallel_loops.distribute spreads over the grid,
// written as convert-linalg-to-parallel-loops leaves a GPU ufunc's loop (the body calls
// the ufunc's function, inlined later). Thread t of T (T = ntid.x * nctaid.x, t =
// ctaid.x * ntid.x + tid.x) runs the flat iterations t, t + T, ...; an elementwise loop
// (its body ends in a store) first runs four of them a trip (ELEMENTS_PER_THREAD,
// ufunc_geometry.py), all their loads first.
// Each case, separated by `// -----`, is a module of its own.

// A one-dimensional elementwise loop: `out[i] = body(x[i], y[i])`.
module {
  gpu.module @one_axis_elementwise {
    func.func private @body(f32, f32) -> f32
    // CHECK-LABEL: gpu.func @add(
    gpu.func @add(%x: memref<?xf32>, %y: memref<?xf32>, %out: memref<?xf32>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      // CHECK: [[N:%dim[0-9_]*]] = memref.dim %arg0
      %n = memref.dim %x, %c0 : memref<?xf32>
      // CHECK-NOT: scf.parallel
      // the number of iterations: (n - 0) / 1, rounded up
      // CHECK: [[SPAN:%[0-9]+]] = arith.subi [[N]], %c0 : index
      // CHECK: [[TOTAL:%[0-9]+]] = arith.ceildivui [[SPAN]], %c1 : index
      // this thread's first iteration, and the grid's width in threads
      // CHECK-DAG: [[NTID:%[0-9]+]] = nvvm.read.ptx.sreg.ntid.x : i32
      // CHECK-DAG: [[BLOCK:%[0-9]+]] = arith.index_castui [[NTID]] : i32 to index
      // CHECK-DAG: [[CTAID:%[0-9]+]] = nvvm.read.ptx.sreg.ctaid.x : i32
      // CHECK-DAG: [[BLOCKIDX:%[0-9]+]] = arith.index_castui [[CTAID]] : i32 to index
      // CHECK-DAG: [[TID:%[0-9]+]] = nvvm.read.ptx.sreg.tid.x : i32
      // CHECK-DAG: [[THREADIDX:%[0-9]+]] = arith.index_castui [[TID]] : i32 to index
      // CHECK-DAG: [[NCTAID:%[0-9]+]] = nvvm.read.ptx.sreg.nctaid.x : i32
      // CHECK-DAG: [[GRID:%[0-9]+]] = arith.index_castui [[NCTAID]] : i32 to index
      // CHECK-DAG: [[BASE:%[0-9]+]] = arith.muli [[BLOCKIDX]], [[BLOCK]] : index
      // CHECK-DAG: [[FIRST:%[0-9]+]] = arith.addi [[BASE]], [[THREADIDX]] : index
      // CHECK-DAG: [[STRIDE:%[0-9]+]] = arith.muli [[BLOCK]], [[GRID]] : index
      // four iterations a trip while the fourth exists: up to TOTAL - 3T, by 4T
      // CHECK: [[SPREAD:%[0-9]+]] = arith.muli [[STRIDE]], %c3 : index
      // CHECK: [[BOUND:%[0-9]+]] = arith.subi [[TOTAL]], [[SPREAD]] : index
      // CHECK: [[STEP:%[0-9]+]] = arith.muli [[STRIDE]], %c4 : index
      // CHECK: [[LEFT:%[0-9]+]] = scf.for [[F:%arg[0-9]+]] = [[FIRST]] to [[BOUND]] step [[STEP]] iter_args({{%arg[0-9]+}} = [[FIRST]]) -> (index) {
      // CHECK:   [[AFTER:%[0-9]+]] = arith.addi [[F]], [[STEP]] : index
      // the four iterations F, F + T, F + 2T, F + 3T, and their positions (0 + f * 1)
      // CHECK:   [[M0:%[0-9]+]] = arith.muli [[F]], %c1 : index
      // CHECK:   [[I0:%[0-9]+]] = arith.addi %c0, [[M0]] : index
      // CHECK:   [[F1:%[0-9]+]] = arith.addi [[F]], [[STRIDE]] : index
      // CHECK:   [[M1:%[0-9]+]] = arith.muli [[F1]], %c1 : index
      // CHECK:   [[I1:%[0-9]+]] = arith.addi %c0, [[M1]] : index
      // CHECK:   [[F2:%[0-9]+]] = arith.addi [[F1]], [[STRIDE]] : index
      // CHECK:   [[M2:%[0-9]+]] = arith.muli [[F2]], %c1 : index
      // CHECK:   [[I2:%[0-9]+]] = arith.addi %c0, [[M2]] : index
      // CHECK:   [[F3:%[0-9]+]] = arith.addi [[F2]], [[STRIDE]] : index
      // CHECK:   [[M3:%[0-9]+]] = arith.muli [[F3]], %c1 : index
      // CHECK:   [[I3:%[0-9]+]] = arith.addi %c0, [[M3]] : index
      // all eight loads before the first call
      // CHECK-NEXT: [[X0:%[0-9]+]] = memref.load %arg0{{\[}}[[I0]]]
      // CHECK-NEXT: [[Y0:%[0-9]+]] = memref.load %arg1{{\[}}[[I0]]]
      // CHECK-NEXT: [[X1:%[0-9]+]] = memref.load %arg0{{\[}}[[I1]]]
      // CHECK-NEXT: [[Y1:%[0-9]+]] = memref.load %arg1{{\[}}[[I1]]]
      // CHECK-NEXT: [[X2:%[0-9]+]] = memref.load %arg0{{\[}}[[I2]]]
      // CHECK-NEXT: [[Y2:%[0-9]+]] = memref.load %arg1{{\[}}[[I2]]]
      // CHECK-NEXT: [[X3:%[0-9]+]] = memref.load %arg0{{\[}}[[I3]]]
      // CHECK-NEXT: [[Y3:%[0-9]+]] = memref.load %arg1{{\[}}[[I3]]]
      // CHECK-NEXT: [[R0:%[0-9]+]] = func.call @body([[X0]], [[Y0]])
      // CHECK-NEXT: memref.store [[R0]], %arg2{{\[}}[[I0]]]
      // CHECK-NEXT: [[R1:%[0-9]+]] = func.call @body([[X1]], [[Y1]])
      // CHECK-NEXT: memref.store [[R1]], %arg2{{\[}}[[I1]]]
      // CHECK-NEXT: [[R2:%[0-9]+]] = func.call @body([[X2]], [[Y2]])
      // CHECK-NEXT: memref.store [[R2]], %arg2{{\[}}[[I2]]]
      // CHECK-NEXT: [[R3:%[0-9]+]] = func.call @body([[X3]], [[Y3]])
      // CHECK-NEXT: memref.store [[R3]], %arg2{{\[}}[[I3]]]
      // CHECK-NEXT: scf.yield [[AFTER]] : index
      // CHECK-NEXT: }
      // the iterations left over, one a trip
      // CHECK-NEXT: scf.for [[G:%arg[0-9]+]] = [[LEFT]] to [[TOTAL]] step [[STRIDE]] {
      // CHECK-NEXT:   [[M:%[0-9]+]] = arith.muli [[G]], %c1 : index
      // CHECK-NEXT:   [[I:%[0-9]+]] = arith.addi %c0, [[M]] : index
      // CHECK-NEXT:   [[X:%[0-9]+]] = memref.load %arg0{{\[}}[[I]]]
      // CHECK-NEXT:   [[Y:%[0-9]+]] = memref.load %arg1{{\[}}[[I]]]
      // CHECK-NEXT:   [[R:%[0-9]+]] = func.call @body([[X]], [[Y]])
      // CHECK-NEXT:   memref.store [[R]], %arg2{{\[}}[[I]]]
      // CHECK-NEXT: }
      // CHECK-NEXT: gpu.return
      scf.parallel (%i) = (%c0) to (%n) step (%c1) {
        %a = memref.load %x[%i] : memref<?xf32>
        %b = memref.load %y[%i] : memref<?xf32>
        %r = func.call @body(%a, %b) : (f32, f32) -> f32
        memref.store %r, %out[%i] : memref<?xf32>
        scf.reduce
      }
      gpu.return
    }
  }
}

// -----

// A two-dimensional elementwise loop: the flat iteration f is row f / cols, column
// f % cols (the last axis fastest: neighbouring threads, neighbouring elements).
module {
  gpu.module @two_axes_elementwise {
    func.func private @body(f32) -> f32
    // CHECK-LABEL: gpu.func @square(
    gpu.func @square(%x: memref<?x?xf32>, %out: memref<?x?xf32>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      // CHECK: [[ROWS:%dim[0-9_]*]] = memref.dim %arg0, %c0
      // CHECK: [[COLS:%dim[0-9_]*]] = memref.dim %arg0, %c1
      %rows = memref.dim %x, %c0 : memref<?x?xf32>
      %cols = memref.dim %x, %c1 : memref<?x?xf32>
      // CHECK-NOT: scf.parallel
      // CHECK: [[SPAN0:%[0-9]+]] = arith.subi [[ROWS]], %c0 : index
      // CHECK: [[TRIPS0:%[0-9]+]] = arith.ceildivui [[SPAN0]], %c1 : index
      // CHECK: [[SPAN1:%[0-9]+]] = arith.subi [[COLS]], %c0 : index
      // CHECK: [[TRIPS1:%[0-9]+]] = arith.ceildivui [[SPAN1]], %c1 : index
      // CHECK: [[TOTAL:%[0-9]+]] = arith.muli [[TRIPS0]], [[TRIPS1]] : index
      // CHECK: nvvm.read.ptx.sreg.nctaid.x
      // CHECK: [[STRIDE:%[0-9]+]] = arith.muli {{%[0-9]+}}, {{%[0-9]+}} : index
      // CHECK: [[LEFT:%[0-9]+]] = scf.for {{%arg[0-9]+}} = {{%[0-9]+}} to {{%[0-9]+}} step {{%[0-9]+}} iter_args
      // CHECK-COUNT-4: memref.load %arg0
      // CHECK-NOT: memref.load
      // CHECK-COUNT-4: memref.store
      // CHECK: scf.yield
      // CHECK: scf.for [[G:%arg[0-9]+]] = [[LEFT]] to [[TOTAL]] step [[STRIDE]] {
      // CHECK-NEXT: [[COL:%[0-9]+]] = arith.remui [[G]], [[TRIPS1]] : index
      // CHECK-NEXT: [[ROW:%[0-9]+]] = arith.divui [[G]], [[TRIPS1]] : index
      // CHECK-NEXT: [[RM:%[0-9]+]] = arith.muli [[ROW]], %c1 : index
      // CHECK-NEXT: [[R:%[0-9]+]] = arith.addi %c0, [[RM]] : index
      // CHECK-NEXT: [[CM:%[0-9]+]] = arith.muli [[COL]], %c1 : index
      // CHECK-NEXT: [[C:%[0-9]+]] = arith.addi %c0, [[CM]] : index
      // CHECK-NEXT: [[V:%[0-9]+]] = memref.load %arg0{{\[}}[[R]], [[C]]]
      // CHECK-NEXT: [[W:%[0-9]+]] = func.call @body([[V]])
      // CHECK-NEXT: memref.store [[W]], %arg1{{\[}}[[R]], [[C]]]
      // CHECK-NEXT: }
      scf.parallel (%i, %j) = (%c0, %c0) to (%rows, %cols) step (%c1, %c1) {
        %v = memref.load %x[%i, %j] : memref<?x?xf32>
        %w = func.call @body(%v) : (f32) -> f32
        memref.store %w, %out[%i, %j] : memref<?x?xf32>
        scf.reduce
      }
      gpu.return
    }
  }
}

// -----

// A loop that is not elementwise (a gufunc's: its body ends in a call), over the odd
// positions 1, 3, ... below n: one iteration a trip, its position 1 + f * 2.
module {
  gpu.module @one_axis_not_elementwise {
    func.func private @core(memref<?x?xf32>, index)
    // CHECK-LABEL: gpu.func @rows(
    gpu.func @rows(%x: memref<?x?xf32>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %n = memref.dim %x, %c0 : memref<?x?xf32>
      // CHECK-NOT: scf.parallel
      // CHECK: [[SPAN:%[0-9]+]] = arith.subi %dim, %c1 : index
      // CHECK: [[TOTAL:%[0-9]+]] = arith.ceildivui [[SPAN]], %c2 : index
      // CHECK: [[FIRST:%[0-9]+]] = arith.addi {{%[0-9]+}}, {{%[0-9]+}} : index
      // CHECK: nvvm.read.ptx.sreg.nctaid.x
      // CHECK: [[STRIDE:%[0-9]+]] = arith.muli {{%[0-9]+}}, {{%[0-9]+}} : index
      // CHECK-NEXT: scf.for [[F:%arg[0-9]+]] = [[FIRST]] to [[TOTAL]] step [[STRIDE]] {
      // CHECK-NEXT:   [[M:%[0-9]+]] = arith.muli [[F]], %c2 : index
      // CHECK-NEXT:   [[I:%[0-9]+]] = arith.addi %c1, [[M]] : index
      // CHECK-NEXT:   func.call @core(%arg0, [[I]])
      // CHECK-NEXT: }
      // CHECK-NEXT: gpu.return
      scf.parallel (%i) = (%c1) to (%n) step (%c2) {
        func.call @core(%x, %i) : (memref<?x?xf32>, index) -> ()
        scf.reduce
      }
      gpu.return
    }
  }
}

// -----

// A parallel loop nested in another: only the outer one is spread over the grid, the
// inner one runs within its thread's iteration.
module {
  gpu.module @nested {
    // CHECK-LABEL: gpu.func @clear(
    gpu.func @clear(%x: memref<?x?xf32>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %zero = arith.constant 0.0 : f32
      %rows = memref.dim %x, %c0 : memref<?x?xf32>
      %cols = memref.dim %x, %c1 : memref<?x?xf32>
      // CHECK-NOT: scf.parallel
      // CHECK: nvvm.read.ptx.sreg.nctaid.x
      // CHECK-NOT: scf.parallel
      // CHECK: scf.for [[F:%arg[0-9]+]] =
      // CHECK-NOT: scf.for
      // CHECK: [[I:%[0-9]+]] = arith.addi %c0, {{%[0-9]+}} : index
      // CHECK-NEXT: scf.parallel ([[J:%arg[0-9]+]]) = (%c0) to (%dim_0) step (%c1) {
      // CHECK-NEXT:   memref.store %cst, %arg0{{\[}}[[I]], [[J]]]
      // CHECK-NEXT:   scf.reduce
      // CHECK-NEXT: }
      // CHECK-NEXT: }
      // CHECK-NEXT: gpu.return
      scf.parallel (%i) = (%c0) to (%rows) step (%c1) {
        scf.parallel (%j) = (%c0) to (%cols) step (%c1) {
          memref.store %zero, %x[%i, %j] : memref<?x?xf32>
          scf.reduce
        }
        scf.reduce
      }
      gpu.return
    }
  }
}

// -----

// A parallel loop in a function that is not a kernel stays as it is: it runs in the
// thread that calls it.
module {
  gpu.module @not_a_kernel {
    // CHECK-LABEL: gpu.func @device(
    // CHECK-NOT: nvvm.read
    // CHECK: scf.parallel
    // CHECK: gpu.return
    gpu.func @device(%x: memref<?xf32>) {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %zero = arith.constant 0.0 : f32
      %n = memref.dim %x, %c0 : memref<?xf32>
      scf.parallel (%i) = (%c0) to (%n) step (%c1) {
        memref.store %zero, %x[%i] : memref<?xf32>
        scf.reduce
      }
      gpu.return
    }
  }
}

// -----

// A loop with a reduction: spread over the grid, each thread would hold a part of the sum.
// It is left whole (convert-scf-to-cf runs it in order in each thread, so that every thread
// has the whole sum), with the loops inside it.
module {
  gpu.module @reduction_left_to_each_thread {
    // CHECK-LABEL: gpu.func @total(
    gpu.func @total(%x: memref<?x?xf32>, %out: memref<?xf32>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %zero = arith.constant 0.0 : f32
      %n = memref.dim %x, %c0 : memref<?x?xf32>
      %m = memref.dim %x, %c1 : memref<?x?xf32>
      // CHECK-NOT: nvvm.read.ptx.sreg
      // CHECK: [[SUM:%[0-9]+]] = scf.parallel ({{%arg[0-9]+}}) = (%c0) to (%dim) step (%c1) init (%cst) -> f32 {
      %sum = scf.parallel (%i) = (%c0) to (%n) step (%c1) init (%zero) -> f32 {
        // CHECK: scf.parallel ({{%arg[0-9]+}}) = (%c0) to (%dim_0) step (%c1) {
        scf.parallel (%j) = (%c0) to (%m) step (%c1) {
          %w = memref.load %x[%i, %j] : memref<?x?xf32>
          memref.store %w, %out[%j] : memref<?xf32>
          scf.reduce
        }
        %v = memref.load %x[%i, %c0] : memref<?x?xf32>
        scf.reduce(%v : f32) {
        ^bb0(%a: f32, %b: f32):
          %s = arith.addf %a, %b : f32
          scf.reduce.return %s : f32
        }
      }
      // CHECK: memref.store [[SUM]], %arg1[%c0]
      memref.store %sum, %out[%c0] : memref<?xf32>
      gpu.return
    }
  }
}
