// ISPC twin of stencil3d.c for `lanes bench wfv` (the ISPC column); see mandelbrot.ispc. The
// boundary copy is the `if` side of an if/else (the C kernel returns early), and the
// neighbours are indexed from the instance's own index, which ISPC sees is contiguous.
export void KERNEL_SPMD(uniform int64 n, uniform const float src[], uniform float dst[],
                        uniform int nx, uniform int ny, uniform int nz, uniform float c0,
                        uniform float c1, uniform float c2, uniform float c3) {
    foreach (i = 0 ... n) {
        int k = (int)i;
        int x = k % nx, y = (k / nx) % ny, z = k / (nx * ny);
        if (x == 0 || x == nx - 1 || y == 0 || y == ny - 1 || z == 0 || z == nz - 1) {
            dst[k] = src[k];
        } else {
            uniform int sy = nx, sz = nx * ny;
            int m = k - sz, p = k + sz;
            float face = src[k - 1] + src[k + 1] + src[k - sy] + src[k + sy] + src[m] + src[p];
            float edge = src[k - sy - 1] + src[k - sy + 1] + src[k + sy - 1] + src[k + sy + 1];
            edge += src[m - 1] + src[m + 1] + src[m - sy] + src[m + sy];
            edge += src[p - 1] + src[p + 1] + src[p - sy] + src[p + sy];
            float corner = src[m - sy - 1] + src[m - sy + 1] + src[m + sy - 1] + src[m + sy + 1];
            corner += src[p - sy - 1] + src[p - sy + 1] + src[p + sy - 1] + src[p + sy + 1];
            dst[k] = c0 * src[k] + c1 * face + c2 * edge + c3 * corner;
        }
    }
}
