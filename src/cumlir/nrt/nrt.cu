/* cumlir's device runtime: the definitions of nrt.cuh (see docs/nrt.md). */
#include "nrt.cuh"

extern "C" {

__device__ NRT_size_t cumlir_nrt_stats[NRT_STAT_COUNT];

static __device__ void count(int which)
{
    atomicAdd(&cumlir_nrt_stats[which], 1ULL);
}

__device__ void *NRT_Allocate(NRT_size_t size)
{
    void *ptr = malloc(size);
    if (ptr != NULL)
        count(NRT_STAT_ALLOC);
    return ptr;
}

__device__ void NRT_Free(void *ptr)
{
    if (ptr == NULL)
        return;
    free(ptr);
    count(NRT_STAT_FREE);
}

static __device__ void init(NRT_MemInfo *mi, void *data, NRT_size_t size, NRT_dtor_function dtor, void *dtor_info)
{
    mi->refct = 1;
    mi->dtor = dtor;
    mi->dtor_info = dtor_info;
    mi->data = data;
    mi->size = size;
    count(NRT_STAT_MI_ALLOC);
}

__device__ NRT_MemInfo *NRT_MemInfo_new(void *data, NRT_size_t size, NRT_dtor_function dtor, void *dtor_info)
{
    NRT_MemInfo *mi = (NRT_MemInfo *)NRT_Allocate(sizeof(NRT_MemInfo));
    if (mi != NULL)
        init(mi, data, size, dtor, dtor_info);
    return mi;
}

__device__ NRT_MemInfo *NRT_MemInfo_alloc_aligned(NRT_size_t size, unsigned align)
{
    if (align < 16)
        align = 16;  /* malloc's own alignment; the MemInfo itself needs 8 */
    /* the data follows the MemInfo in the same block, padded up to its alignment */
    char *base = (char *)NRT_Allocate(sizeof(NRT_MemInfo) + align + size);
    if (base == NULL) {
        printf("cumlir NRT: the device heap is exhausted (allocating %llu bytes); "
               "raise the limit CU_LIMIT_MALLOC_HEAP_SIZE or free arrays sooner\n", size);
        __trap();
    }
    NRT_size_t address = (NRT_size_t)(base + sizeof(NRT_MemInfo));
    char *data = (char *)((address + align - 1) / align * align);
    init((NRT_MemInfo *)base, data, size, NULL, NULL);
    return (NRT_MemInfo *)base;
}

__device__ void *NRT_MemInfo_data(NRT_MemInfo *mi)
{
    return mi->data;
}

__device__ NRT_size_t NRT_MemInfo_size(NRT_MemInfo *mi)
{
    return mi->size;
}

__device__ void NRT_incref(NRT_MemInfo *mi)
{
    if (mi != NULL)
        atomicAdd(&mi->refct, 1ULL);
}

__device__ void NRT_decref(NRT_MemInfo *mi)
{
    if (mi == NULL)
        return;
    /* the thread dropping the last reference must see every write made through the others */
    __threadfence();
    if (atomicAdd(&mi->refct, ~0ULL) != 1ULL)
        return;
    __threadfence();
    if (mi->dtor != NULL)
        mi->dtor(mi->data, mi->size, mi->dtor_info);
    count(NRT_STAT_MI_FREE);
    NRT_Free(mi);
}

}
