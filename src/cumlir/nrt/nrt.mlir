// cumlir's device runtime: the definitions of nrt.cuh (docs/nrt.md), in MLIR's LLVM
// dialect, compiled by cumlir's own code generators for each chip and code format
// (nrt/__init__.py). A MemInfo is {refct, dtor, dtor_info, data, size}: 40 bytes.
module {
gpu.module @cumlir_nrt {
  // heap blocks allocated and freed, MemInfos made and destroyed (STATS_FIELDS' order)
  llvm.mlir.global external @cumlir_nrt_stats(dense<0> : tensor<4xi64>) {addr_space = 1 : i32, alignment = 8 : i64} : !llvm.array<4 x i64>
  llvm.mlir.global private constant @cumlir_nrt_heap_exhausted("cumlir NRT: the device heap is exhausted (allocating %llu bytes); raise the limit CU_LIMIT_MALLOC_HEAP_SIZE or free arrays sooner\0A\00") {addr_space = 0 : i32} : !llvm.array<131 x i8>

  llvm.func @malloc(i64) -> !llvm.ptr
  llvm.func @free(!llvm.ptr)
  llvm.func @vprintf(!llvm.ptr, !llvm.ptr) -> i32

  llvm.func internal @cumlir_nrt_count(%which: i32) {
    %stats = llvm.mlir.addressof @cumlir_nrt_stats : !llvm.ptr<1>
    %slot = llvm.getelementptr inbounds %stats[0, %which] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, !llvm.array<4 x i64>
    %one = llvm.mlir.constant(1 : i64) : i64
    %old = llvm.atomicrmw add %slot, %one syncscope("device") monotonic : !llvm.ptr<1>, i64
    llvm.return
  }

  llvm.func internal @cumlir_nrt_init(%mi: !llvm.ptr, %data: !llvm.ptr, %size: i64, %dtor: !llvm.ptr, %info: !llvm.ptr) {
    %one = llvm.mlir.constant(1 : i64) : i64
    llvm.store %one, %mi : i64, !llvm.ptr
    %dtor_slot = llvm.getelementptr inbounds %mi[0, 1] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(i64, ptr, ptr, ptr, i64)>
    llvm.store %dtor, %dtor_slot : !llvm.ptr, !llvm.ptr
    %info_slot = llvm.getelementptr inbounds %mi[0, 2] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(i64, ptr, ptr, ptr, i64)>
    llvm.store %info, %info_slot : !llvm.ptr, !llvm.ptr
    %data_slot = llvm.getelementptr inbounds %mi[0, 3] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(i64, ptr, ptr, ptr, i64)>
    llvm.store %data, %data_slot : !llvm.ptr, !llvm.ptr
    %size_slot = llvm.getelementptr inbounds %mi[0, 4] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(i64, ptr, ptr, ptr, i64)>
    llvm.store %size, %size_slot : i64, !llvm.ptr
    %mi_alloc = llvm.mlir.constant(2 : i32) : i32
    llvm.call @cumlir_nrt_count(%mi_alloc) : (i32) -> ()
    llvm.return
  }

  llvm.func @NRT_Allocate(%size: i64) -> !llvm.ptr {
    %ptr = llvm.call @malloc(%size) : (i64) -> !llvm.ptr
    %null = llvm.mlir.zero : !llvm.ptr
    %failed = llvm.icmp "eq" %ptr, %null : !llvm.ptr
    llvm.cond_br %failed, ^done, ^counted
  ^counted:
    %alloc = llvm.mlir.constant(0 : i32) : i32
    llvm.call @cumlir_nrt_count(%alloc) : (i32) -> ()
    llvm.br ^done
  ^done:
    llvm.return %ptr : !llvm.ptr
  }

  llvm.func @NRT_Free(%ptr: !llvm.ptr) {
    %null = llvm.mlir.zero : !llvm.ptr
    %none = llvm.icmp "eq" %ptr, %null : !llvm.ptr
    llvm.cond_br %none, ^done, ^freed
  ^freed:
    llvm.call @free(%ptr) : (!llvm.ptr) -> ()
    %freed_stat = llvm.mlir.constant(1 : i32) : i32
    llvm.call @cumlir_nrt_count(%freed_stat) : (i32) -> ()
    llvm.br ^done
  ^done:
    llvm.return
  }

  llvm.func @NRT_MemInfo_new(%data: !llvm.ptr, %size: i64, %dtor: !llvm.ptr, %info: !llvm.ptr) -> !llvm.ptr {
    %bytes = llvm.mlir.constant(40 : i64) : i64
    %mi = llvm.call @NRT_Allocate(%bytes) : (i64) -> !llvm.ptr
    %null = llvm.mlir.zero : !llvm.ptr
    %failed = llvm.icmp "eq" %mi, %null : !llvm.ptr
    llvm.cond_br %failed, ^done, ^made
  ^made:
    llvm.call @cumlir_nrt_init(%mi, %data, %size, %dtor, %info) : (!llvm.ptr, !llvm.ptr, i64, !llvm.ptr, !llvm.ptr) -> ()
    llvm.br ^done
  ^done:
    llvm.return %mi : !llvm.ptr
  }

  // the data follows the MemInfo in the same heap block, padded up to *align*, a power of
  // two (at least 16, malloc's own alignment); an exhausted heap ends the kernel (a trap)
  llvm.func @NRT_MemInfo_alloc_aligned(%size: i64, %asked: i32) -> !llvm.ptr {
    %one = llvm.mlir.constant(1 : i32) : i32
    %args = llvm.alloca %one x i64 {alignment = 8 : i64} : (i32) -> !llvm.ptr
    %sixteen = llvm.mlir.constant(16 : i32) : i32
    %align32 = llvm.intr.umax(%asked, %sixteen) : (i32, i32) -> i32
    %align = llvm.zext %align32 : i32 to i64
    %header = llvm.mlir.constant(40 : i64) : i64
    %padded = llvm.add %size, %align : i64
    %total = llvm.add %padded, %header : i64
    %base = llvm.call @NRT_Allocate(%total) : (i64) -> !llvm.ptr
    %null = llvm.mlir.zero : !llvm.ptr
    %failed = llvm.icmp "eq" %base, %null : !llvm.ptr
    llvm.cond_br %failed, ^exhausted, ^made
  ^exhausted:
    llvm.store %size, %args : i64, !llvm.ptr
    %message = llvm.mlir.addressof @cumlir_nrt_heap_exhausted : !llvm.ptr
    %printed = llvm.call @vprintf(%message, %args) : (!llvm.ptr, !llvm.ptr) -> i32
    llvm.call_intrinsic "llvm.trap"() : () -> ()
    llvm.unreachable
  ^made:
    %after = llvm.getelementptr inbounds %base[40] : (!llvm.ptr) -> !llvm.ptr, i8
    %address = llvm.ptrtoint %after : !llvm.ptr to i64
    %one64 = llvm.mlir.constant(1 : i64) : i64
    %slack = llvm.sub %align, %one64 : i64
    %raised = llvm.add %address, %slack : i64
    %zero = llvm.mlir.constant(0 : i64) : i64
    %mask = llvm.sub %zero, %align : i64
    %aligned = llvm.and %raised, %mask : i64
    %skip = llvm.sub %aligned, %address : i64
    %data = llvm.getelementptr inbounds %after[%skip] : (!llvm.ptr, i64) -> !llvm.ptr, i8
    llvm.call @cumlir_nrt_init(%base, %data, %size, %null, %null) : (!llvm.ptr, !llvm.ptr, i64, !llvm.ptr, !llvm.ptr) -> ()
    llvm.return %base : !llvm.ptr
  }

  llvm.func @NRT_MemInfo_data(%mi: !llvm.ptr) -> !llvm.ptr {
    %slot = llvm.getelementptr inbounds %mi[0, 3] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(i64, ptr, ptr, ptr, i64)>
    %data = llvm.load %slot : !llvm.ptr -> !llvm.ptr
    llvm.return %data : !llvm.ptr
  }

  llvm.func @NRT_MemInfo_size(%mi: !llvm.ptr) -> i64 {
    %slot = llvm.getelementptr inbounds %mi[0, 4] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(i64, ptr, ptr, ptr, i64)>
    %size = llvm.load %slot : !llvm.ptr -> i64
    llvm.return %size : i64
  }

  // reference counts change atomically at device scope, relaxed, as CUDA's atomicAdd does
  llvm.func @NRT_incref(%mi: !llvm.ptr) {
    %null = llvm.mlir.zero : !llvm.ptr
    %none = llvm.icmp "eq" %mi, %null : !llvm.ptr
    llvm.cond_br %none, ^done, ^counted
  ^counted:
    %one = llvm.mlir.constant(1 : i64) : i64
    %old = llvm.atomicrmw add %mi, %one syncscope("device") monotonic : !llvm.ptr, i64
    llvm.br ^done
  ^done:
    llvm.return
  }

  // the thread dropping the last reference must see every write made through the others:
  // a device-wide fence before the count falls and another before the memory is released
  llvm.func @NRT_decref(%mi: !llvm.ptr) {
    %null = llvm.mlir.zero : !llvm.ptr
    %none = llvm.icmp "eq" %mi, %null : !llvm.ptr
    llvm.cond_br %none, ^done, ^dropped
  ^dropped:
    nvvm.memory.barrier #nvvm.mem_scope<gpu>
    %one = llvm.mlir.constant(1 : i64) : i64
    %old = llvm.atomicrmw sub %mi, %one syncscope("device") monotonic : !llvm.ptr, i64
    %last = llvm.icmp "eq" %old, %one : i64
    llvm.cond_br %last, ^release, ^done
  ^release:
    nvvm.memory.barrier #nvvm.mem_scope<gpu>
    %dtor_slot = llvm.getelementptr inbounds %mi[0, 1] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(i64, ptr, ptr, ptr, i64)>
    %dtor = llvm.load %dtor_slot : !llvm.ptr -> !llvm.ptr
    %no_dtor = llvm.icmp "eq" %dtor, %null : !llvm.ptr
    llvm.cond_br %no_dtor, ^free, ^destroy
  ^destroy:
    %data = llvm.call @NRT_MemInfo_data(%mi) : (!llvm.ptr) -> !llvm.ptr
    %size = llvm.call @NRT_MemInfo_size(%mi) : (!llvm.ptr) -> i64
    %info_slot = llvm.getelementptr inbounds %mi[0, 2] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(i64, ptr, ptr, ptr, i64)>
    %info = llvm.load %info_slot : !llvm.ptr -> !llvm.ptr
    llvm.call %dtor(%data, %size, %info) : !llvm.ptr, (!llvm.ptr, i64, !llvm.ptr) -> ()
    llvm.br ^free
  ^free:
    %mi_free = llvm.mlir.constant(3 : i32) : i32
    llvm.call @cumlir_nrt_count(%mi_free) : (i32) -> ()
    llvm.call @NRT_Free(%mi) : (!llvm.ptr) -> ()
    llvm.br ^done
  ^done:
    llvm.return
  }
}
}
