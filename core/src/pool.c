/* placeholder */ typedef int cutune_placeholder_pool;
