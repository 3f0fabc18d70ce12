/*
 * cumlir's device runtime (NRT): reference-counted memory for arrays made in device code.
 *
 * Include this header in CUDA C++ linked with a kernel through a link item marked
 * nrt=True (CUSource(..., nrt=True), PTXSource(..., nrt=True), ...); the functions are
 * defined once, in the runtime cumlir links with such kernels. docs/nrt.md describes
 * the ownership rules. Every function may be called by any thread at any time: reference
 * counts are changed atomically, at device scope.
 */
#ifndef CUMLIR_NRT_CUH
#define CUMLIR_NRT_CUH

#ifdef __cplusplus
extern "C" {
#endif

typedef unsigned long long NRT_size_t;

/* Called once, when the last reference goes, with the MemInfo's data, size and dtor_info. */
typedef void (*NRT_dtor_function)(void *data, NRT_size_t size, void *dtor_info);

/* The owner of one block of memory. An array made in device code keeps a pointer to its
 * MemInfo next to its data pointer; the data of an allocation made by
 * NRT_MemInfo_alloc_aligned lies in the same heap block, after the MemInfo. */
typedef struct NRT_MemInfo {
    NRT_size_t refct;         /* references held; the memory is released when it reaches 0 */
    NRT_dtor_function dtor;   /* NULL: nothing to call before the MemInfo's block is freed */
    void *dtor_info;
    void *data;
    NRT_size_t size;          /* bytes of data */
} NRT_MemInfo;

/* A MemInfo owning *size* bytes aligned to *align* (a power of two), with one
 * reference held by the caller. The device heap (cudaLimitMallocHeapSize) being exhausted
 * ends the kernel with an error (a trap), after printing what was asked for. */
__device__ NRT_MemInfo *NRT_MemInfo_alloc_aligned(NRT_size_t size, unsigned align);

/* A MemInfo owning memory the caller allocated: *dtor* (if not NULL) releases it. One
 * reference is held by the caller. NULL when the heap is exhausted. */
__device__ NRT_MemInfo *NRT_MemInfo_new(void *data, NRT_size_t size, NRT_dtor_function dtor, void *dtor_info);

__device__ void *NRT_MemInfo_data(NRT_MemInfo *mi);
__device__ NRT_size_t NRT_MemInfo_size(NRT_MemInfo *mi);

/* Take and give back one reference; NULL is ignored. The last NRT_decref calls the
 * destructor and frees the MemInfo. */
__device__ void NRT_incref(NRT_MemInfo *mi);
__device__ void NRT_decref(NRT_MemInfo *mi);

/* Plain heap memory, counted in the statistics (malloc and free of the device heap). */
__device__ void *NRT_Allocate(NRT_size_t size);
__device__ void NRT_Free(void *ptr);

/* The statistics, read by the host (cuda.nrt_stats()): heap blocks allocated and freed,
 * MemInfos made and destroyed. One copy per loaded kernel module. */
enum { NRT_STAT_ALLOC = 0, NRT_STAT_FREE = 1, NRT_STAT_MI_ALLOC = 2, NRT_STAT_MI_FREE = 3, NRT_STAT_COUNT = 4 };
extern __device__ NRT_size_t cumlir_nrt_stats[NRT_STAT_COUNT];

#ifdef __cplusplus
}
#endif

#endif
