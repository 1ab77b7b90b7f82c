// All-pairs shortest paths (CC'12's FloydWarshall): the host launches one pass per
// intermediate node k over the 2-D NDRange (n, n). Row k and column k do not change in
// pass k (dist[k][k] = 0), so the pass is race-free. `next_hop` records the last k that
// improved each pair.
__kernel void floyd_warshall_pass(__global int *dist, __global int *next_hop, int n, int k) {
  int x = get_global_id(0);
  int y = get_global_id(1);
  int via = dist[y * n + k] + dist[k * n + x];
  if (via < dist[y * n + x]) {
    dist[y * n + x] = via;
    next_hop[y * n + x] = k;
  }
}
