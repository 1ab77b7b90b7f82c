// ISPC twin of tree_search.c for `lanes bench wfv` (the ISPC column); see mandelbrot.ispc.
// Each program instance walks the array-stored search tree with its own key: the node
// index is varying, so every tree access is a gather.
export void KERNEL_SPMD(uniform int64 n, uniform const int keys[], uniform const int queries[],
                        uniform int out[], uniform int size) {
    foreach (i = 0 ... n) {
        int q = queries[i];
        int node = 0, depth = 0;
        while (node < size) {
            int k = keys[node];
            if (k == q)
                break;
            node = q < k ? 2 * node + 1 : 2 * node + 2;
            depth++;
        }
        out[i] = node < size ? depth : -depth;
    }
}
