// Inline-PTX wrappers for the tensor-core matmul kernels (matmul_tf32.cu names this file in its
// INI's headers =, and the core puts it in front of the kernel source). NVRTC compiles without
// an include path, so nothing here uses a CUDA header. tests/kemu, which runs the kernels on the
// CPU, brings emulations of its own (CUTUNE_KEMU).
#ifndef CUTUNE_KEMU
__device__ __forceinline__ unsigned smem_addr(const void *p)
{
    return (unsigned)__cvta_generic_to_shared(p);
}
// 16 bytes from global to shared, of which the first `bytes` are read and the rest zeroed
// (0: nothing is read, so src may then lie outside the matrix)
__device__ __forceinline__ void cp_async16(unsigned dst, const void *src, int bytes)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src),
                 "r"(bytes));
}
__device__ __forceinline__ void cp_async_commit()
{
    asm volatile("cp.async.commit_group;\n" ::);
}
template <int N_> __device__ __forceinline__ void cp_async_wait()
{
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N_) : "memory");
}
// four 8 x 8 matrices of 16-bit elements (or 8 x 4 of 32-bit ones): lane l gives the address
// of row l % 8 of matrix l / 8 and receives, from each matrix, word l % 4 of row l / 4
__device__ __forceinline__ void ldmatrix_x4(unsigned (&r)[4], unsigned addr)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}
// 16 bytes of shared memory at a 16-byte aligned address
__device__ __forceinline__ void lds128(unsigned (&r)[4], unsigned addr)
{
    asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
// Thread block clusters (sm_90): this block's rank in its cluster; a barrier over every
// thread of the cluster after which shared memory written before it, in any of its blocks,
// is seen; and 4 floats of block `rank`'s shared memory at the place of `local` in this one's.
__device__ __forceinline__ unsigned cluster_rank()
{
    unsigned r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
    return r;
}
__device__ __forceinline__ void cluster_sync()
{
    asm volatile("barrier.cluster.arrive.release.aligned;\n"
                 "barrier.cluster.wait.acquire.aligned;\n" ::
                     : "memory");
}
__device__ __forceinline__ void cluster_load4(float (&v)[4], const float *local, unsigned rank)
{
    unsigned remote;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n"
                 : "=r"(remote)
                 : "r"(smem_addr(local)), "r"(rank));
    asm volatile("ld.shared::cluster.v4.f32 {%0, %1, %2, %3}, [%4];\n"
                 : "=f"(v[0]), "=f"(v[1]), "=f"(v[2]), "=f"(v[3])
                 : "r"(remote)
                 : "memory");
}
#endif
#endif
