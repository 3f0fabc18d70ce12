// math_loop (benchmarks/kernels/math_loop.py) in the LLVM dialect before constant_trip_loops.mark: an
// 8-trip range loop (its state in the alloca %8) whose body calls sin, exp and sqrt
module attributes {gpu.container_module} {
  gpu.module @cumlir_kernels [#nvvm.target<O = 3, chip = "sm_90", features = "+ptx78">] attributes {llvm.data_layout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"} {
    llvm.func @__nv_sqrt(f64) -> f64 attributes {sym_visibility = "private"}
    llvm.func @__nv_exp(f64) -> f64 attributes {sym_visibility = "private"}
    llvm.func @__nv_sin(f64) -> f64 attributes {sym_visibility = "private"}
    llvm.func @__nv_fabs(f64) -> f64
    llvm.func @math_loop(%arg0: !llvm.ptr, %arg1: i64, %arg2: i64, %arg3: i64, %arg4: !llvm.ptr, %arg5: i64, %arg6: i64, %arg7: i64) attributes {gpu.kernel, nvvm.kernel} {
      %0 = llvm.mlir.constant(8 : i64) : i64
      %1 = llvm.mlir.constant(1 : index) : i64
      %2 = llvm.mlir.constant(0.000000e+00 : f64) : f64
      %3 = llvm.mlir.constant(0 : i64) : i64
      %4 = llvm.mlir.constant(0 : index) : i64
      %5 = llvm.mlir.constant(1 : i64) : i64
      %6 = llvm.mlir.poison : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
      %7 = llvm.mlir.constant(3 : index) : i64
      %8 = llvm.alloca %7 x i64 : (i64) -> !llvm.ptr
      %9 = llvm.insertvalue %8, %6[0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
      %10 = llvm.insertvalue %8, %9[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
      %11 = llvm.insertvalue %4, %10[2] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
      %12 = llvm.insertvalue %7, %11[3, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
      %13 = llvm.insertvalue %1, %12[4, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
      %14 = llvm.insertvalue %arg0, %6[0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
      %15 = llvm.insertvalue %arg0, %14[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
      %16 = llvm.insertvalue %arg1, %15[2] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
      %17 = llvm.insertvalue %arg2, %16[3, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
      %18 = llvm.insertvalue %arg3, %17[4, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
      %19 = llvm.insertvalue %arg4, %6[0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
      %20 = llvm.insertvalue %arg4, %19[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
      %21 = llvm.insertvalue %arg5, %20[2] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
      %22 = llvm.insertvalue %arg6, %21[3, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
      %23 = llvm.insertvalue %arg7, %22[4, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
      %24 = nvvm.read.ptx.sreg.ctaid.x : i32
      %25 = llvm.zext %24 : i32 to i64
      %26 = nvvm.read.ptx.sreg.ntid.x : i32
      %27 = llvm.zext %26 : i32 to i64
      %28 = llvm.mul %25, %27 : i64
      %29 = nvvm.read.ptx.sreg.tid.x : i32
      %30 = llvm.zext %29 : i32 to i64
      %31 = llvm.add %28, %30 : i64
      %32 = llvm.icmp "slt" %31, %arg2 : i64
      llvm.cond_br %32, ^bb1(%31, %23, %18 : i64, !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>, !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>), ^bb5
    ^bb1(%33: i64, %34: !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>, %35: !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>):  // pred: ^bb0
      %36 = llvm.extractvalue %35[3, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
      %37 = llvm.icmp "slt" %33, %3 : i64
      %38 = llvm.add %33, %36 : i64
      %39 = llvm.select %37, %38, %33 : i1, i64
      %40 = llvm.extractvalue %35[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
      %41 = llvm.extractvalue %35[2] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
      %42 = llvm.getelementptr %40[%41] : (!llvm.ptr, i64) -> !llvm.ptr, f64
      %43 = llvm.getelementptr inbounds|nuw %42[%39] : (!llvm.ptr, i64) -> !llvm.ptr, f64
      %44 = llvm.load %43 : !llvm.ptr -> f64
      llvm.store %3, %8 : i64, !llvm.ptr
      %45 = llvm.getelementptr inbounds|nuw %8[1] : (!llvm.ptr) -> !llvm.ptr, i64
      llvm.store %0, %45 : i64, !llvm.ptr
      %46 = llvm.getelementptr inbounds|nuw %8[2] : (!llvm.ptr) -> !llvm.ptr, i64
      llvm.store %5, %46 : i64, !llvm.ptr
      llvm.br ^bb2(%13, %2, %33, %34, %44 : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>, f64, i64, !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>, f64)
    ^bb2(%47: !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>, %48: f64, %49: i64, %50: !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>, %51: f64):  // 2 preds: ^bb1, ^bb3
      %52 = llvm.extractvalue %47[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
      %53 = llvm.load %52 : !llvm.ptr -> i64
      %54 = llvm.extractvalue %47[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
      %55 = llvm.getelementptr inbounds|nuw %54[1] : (!llvm.ptr) -> !llvm.ptr, i64
      %56 = llvm.load %55 : !llvm.ptr -> i64
      %57 = llvm.extractvalue %47[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
      %58 = llvm.getelementptr inbounds|nuw %57[2] : (!llvm.ptr) -> !llvm.ptr, i64
      %59 = llvm.load %58 : !llvm.ptr -> i64
      %60 = llvm.icmp "ne" %56, %3 : i64
      %61 = llvm.add %53, %59 : i64
      %62 = llvm.extractvalue %47[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
      llvm.store %61, %62 : i64, !llvm.ptr
      %63 = llvm.zext %60 : i1 to i64
      %64 = llvm.sub %56, %63 : i64
      %65 = llvm.extractvalue %47[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
      %66 = llvm.getelementptr inbounds|nuw %65[1] : (!llvm.ptr) -> !llvm.ptr, i64
      llvm.store %64, %66 : i64, !llvm.ptr
      llvm.cond_br %60, ^bb3(%47, %53, %48, %49, %50, %51 : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>, i64, f64, i64, !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>, f64), ^bb4(%48, %49, %50 : f64, i64, !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>)
    ^bb3(%67: !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>, %68: i64, %69: f64, %70: i64, %71: !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>, %72: f64):  // pred: ^bb2
      %73 = llvm.sitofp %68 : i64 to f64
      %74 = llvm.fmul %72, %73 {fastmathFlags = #llvm.fastmath<contract>} : f64
      %75 = llvm.call @__nv_sin(%74) : (f64) -> f64
      %76 = llvm.fneg %72 {fastmathFlags = #llvm.fastmath<contract>} : f64
      %77 = llvm.call @__nv_exp(%76) : (f64) -> f64
      %78 = llvm.fmul %75, %77 {fastmathFlags = #llvm.fastmath<contract>} : f64
      %79 = llvm.call @__nv_fabs(%72) : (f64) -> f64
      %80 = llvm.fadd %79, %73 {fastmathFlags = #llvm.fastmath<contract>} : f64
      %81 = llvm.call @__nv_sqrt(%80) : (f64) -> f64
      %82 = llvm.fadd %78, %81 {fastmathFlags = #llvm.fastmath<contract>} : f64
      %83 = llvm.fadd %69, %82 {fastmathFlags = #llvm.fastmath<contract>} : f64
      llvm.br ^bb2(%67, %83, %70, %71, %72 : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>, f64, i64, !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>, f64)
    ^bb4(%84: f64, %85: i64, %86: !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>):  // pred: ^bb2
      %87 = llvm.extractvalue %86[3, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
      %88 = llvm.icmp "slt" %85, %3 : i64
      %89 = llvm.add %85, %87 : i64
      %90 = llvm.select %88, %89, %85 : i1, i64
      %91 = llvm.extractvalue %86[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
      %92 = llvm.extractvalue %86[2] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
      %93 = llvm.getelementptr %91[%92] : (!llvm.ptr, i64) -> !llvm.ptr, f64
      %94 = llvm.getelementptr inbounds|nuw %93[%90] : (!llvm.ptr, i64) -> !llvm.ptr, f64
      llvm.store %84, %94 : f64, !llvm.ptr
      llvm.return
    ^bb5:  // pred: ^bb0
      llvm.return
    }
  }
}

