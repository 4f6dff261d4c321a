// The last-block ticket of the kernels that finish their work in the same launch (put in
// front of their source; see plugins/meson.build).

// Whether this block took the launch's last ticket from *counter. Every thread of the block
// must call it (it has barriers), after its own writes of the block's results. When it
// returns true, every block's writes made before its call are visible to this block; the
// caller then resets *counter to 0 for the next launch. `last` is a __shared__ bool of the
// kernel, declared after its shared arrays: a flag declared here, ahead of them, shifted
// histogram_shared's counts by 4 bytes and cost it 9% (an A/B run on one H200, 2026-11-22).
__device__ __forceinline__ bool last_block(unsigned int *counter, bool &last)
{
    __threadfence(); // this thread's writes are visible before the block takes its ticket
    __syncthreads();
    if (threadIdx.x == 0)
        last = atomicAdd(counter, 1u) == gridDim.x - 1;
    __syncthreads();
    const bool mine = last; /* read once: the fence below would make it read again */
    if (mine)
        __threadfence();
    return mine;
}
