/* What the lookup handle holds loaded: its tuned kernels (built by launch.c) and its library
 * calls (launch_library.c), released here for cutune_close (lookup.c), apart from the
 * launches so that lookup.c and launch.c do not need each other. */
#include "lookup_int.h"

#include <stdlib.h>

void cutune_tuned_kernel_free(CutuneTunedKernel *k)
{
    cutune_kernel_unload(&k->k);
    cutune_geometry_free(&k->geo);
    free(k->key);
    free(k->pairs);
}

void cutune_lookup_kernels_free(CutuneLookup *h)
{
    cutune_lookup_libraries_free(h);
    for (size_t i = 0; i < h->nkernels; i++)
        cutune_tuned_kernel_free(&h->kernels[i]);
    free(h->kernels);
    h->kernels = NULL;
    h->nkernels = 0;
    free(h->memo); /* its entries name kernels by index */
    h->memo = NULL;
    h->nmemo = h->memo_next = 0;
}
