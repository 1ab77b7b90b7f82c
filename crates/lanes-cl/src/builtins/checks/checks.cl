// Scalar-signature wrappers around builtins, for check.c (native) and `lanes interp`.
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
// conversions
char  cv_char_sat_f(float x) { return convert_char_sat(x); }
uchar cv_uchar_sat_f(float x) { return convert_uchar_sat(x); }
uchar cv_uchar_sat_rte_f(float x) { return convert_uchar_sat_rte(x); }
int   cv_int_f(float x) { return convert_int(x); }
int   cv_int_sat_f(float x) { return convert_int_sat(x); }
int   cv_int_sat_rte_f(float x) { return convert_int_sat_rte(x); }
int   cv_int_sat_rtp_f(float x) { return convert_int_sat_rtp(x); }
int   cv_int_sat_rtn_f(float x) { return convert_int_sat_rtn(x); }
uint  cv_uint_sat_d(double x) { return convert_uint_sat(x); }
uint  cv_uint_sat_rte_d(double x) { return convert_uint_sat_rte(x); }
long  cv_long_sat_f(float x) { return convert_long_sat(x); }
long  cv_long_sat_rte_d(double x) { return convert_long_sat_rte(x); }
ulong cv_ulong_sat_d(double x) { return convert_ulong_sat(x); }
ulong cv_ulong_sat_rtp_f(float x) { return convert_ulong_sat_rtp(x); }
short cv_short_sat_i(int x) { return convert_short_sat(x); }
ushort cv_ushort_sat_i(int x) { return convert_ushort_sat(x); }
uchar cv_uchar_sat_l(long x) { return convert_uchar_sat(x); }
uint  cv_uint_sat_l(long x) { return convert_uint_sat(x); }
int   cv_int_sat_ui(uint x) { return convert_int_sat(x); }
long  cv_long_sat_ul(ulong x) { return convert_long_sat(x); }
ulong cv_ulong_sat_l(long x) { return convert_ulong_sat(x); }
char  cv_char_sat_ul(ulong x) { return convert_char_sat(x); }
char  cv_char_sat_uc(uchar x) { return convert_char_sat(x); }
float cv_float_i(int x) { return convert_float(x); }
float cv_float_rtz_i(int x) { return convert_float_rtz(x); }
float cv_float_rtp_i(int x) { return convert_float_rtp(x); }
float cv_float_rtn_i(int x) { return convert_float_rtn(x); }
float cv_float_rtz_l(long x) { return convert_float_rtz(x); }
float cv_float_rtp_l(long x) { return convert_float_rtp(x); }
float cv_float_rtn_l(long x) { return convert_float_rtn(x); }
float cv_float_rtz_ul(ulong x) { return convert_float_rtz(x); }
float cv_float_rtp_ul(ulong x) { return convert_float_rtp(x); }
float cv_float_rtn_ul(ulong x) { return convert_float_rtn(x); }
double cv_double_rtz_l(long x) { return convert_double_rtz(x); }
double cv_double_rtp_ul(ulong x) { return convert_double_rtp(x); }
double cv_double_rtn_l(long x) { return convert_double_rtn(x); }
float cv_float_d(double x) { return convert_float(x); }
float cv_float_rtz_d(double x) { return convert_float_rtz(x); }
float cv_float_rtp_d(double x) { return convert_float_rtp(x); }
float cv_float_rtn_d(double x) { return convert_float_rtn(x); }
// integer
#define I2(N, T, F) T N(T a, T b) { return F(a, b); }
#define I3(N, T, F) T N(T a, T b, T c) { return F(a, b, c); }
I2(mh_c, char, mul_hi) I2(mh_uc, uchar, mul_hi) I2(mh_s, short, mul_hi) I2(mh_us, ushort, mul_hi)
I2(mh_i, int, mul_hi) I2(mh_ui, uint, mul_hi) I2(mh_l, long, mul_hi) I2(mh_ul, ulong, mul_hi)
I3(ms_c, char, mad_sat) I3(ms_uc, uchar, mad_sat) I3(ms_s, short, mad_sat) I3(ms_us, ushort, mad_sat)
I3(ms_i, int, mad_sat) I3(ms_ui, uint, mad_sat) I3(ms_l, long, mad_sat) I3(ms_ul, ulong, mad_sat)
I2(as_c, char, add_sat) I2(as_uc, uchar, add_sat) I2(as_s, short, add_sat) I2(as_us, ushort, add_sat)
I2(as_i, int, add_sat) I2(as_ui, uint, add_sat) I2(as_l, long, add_sat) I2(as_ul, ulong, add_sat)
I2(ss_c, char, sub_sat) I2(ss_uc, uchar, sub_sat) I2(ss_s, short, sub_sat) I2(ss_us, ushort, sub_sat)
I2(ss_i, int, sub_sat) I2(ss_ui, uint, sub_sat) I2(ss_l, long, sub_sat) I2(ss_ul, ulong, sub_sat)
I2(rot_c, char, rotate) I2(rot_uc, uchar, rotate) I2(rot_s, short, rotate) I2(rot_i, int, rotate) I2(rot_l, long, rotate) I2(rot_ul, ulong, rotate)
I2(hadd_i, int, hadd) I2(rhadd_i, int, rhadd) I2(hadd_uc, uchar, hadd) I2(rhadd_c, char, rhadd) I2(hadd_ul, ulong, hadd) I2(rhadd_l, long, rhadd)
I2(mul24_i, int, mul24) I3(mad24_i, int, mad24) I3(madhi_i, int, mad_hi)
char clz_c(char x) { return clz(x); } short clz_s(short x) { return clz(x); } int clz_i(int x) { return clz(x); } long clz_l(long x) { return clz(x); }
uchar pop_uc(uchar x) { return popcount(x); } int pop_i(int x) { return popcount(x); } long pop_l(long x) { return popcount(x); }
uchar abs_c(char x) { return abs(x); } uint abs_i(int x) { return abs(x); } ulong abs_l(long x) { return abs(x); }
uchar absd_c(char x, char y) { return abs_diff(x, y); } uint absd_i(int x, int y) { return abs_diff(x, y); } ulong absd_l(long x, long y) { return abs_diff(x, y); }
short ups_c(char h, uchar l) { return upsample(h, l); } long ups_i(int h, uint l) { return upsample(h, l); }
// half
float h2f(ushort h) { return vload_half(0, (const half *)&h); }
#define F2H(N, T, F) ushort N(T x) { ushort h; F(x, 0, (half *)&h); return h; }
F2H(f2h, float, vstore_half) F2H(f2h_rtz, float, vstore_half_rtz) F2H(f2h_rtp, float, vstore_half_rtp) F2H(f2h_rtn, float, vstore_half_rtn)
F2H(d2h, double, vstore_half) F2H(d2h_rtz, double, vstore_half_rtz) F2H(d2h_rtp, double, vstore_half_rtp) F2H(d2h_rtn, double, vstore_half_rtn)
void h_roundtrip4(__global const half *in, __global half *out, __global float *f) {
  float4 v = vload_half4(1, in); vstore4(v, 0, f); vstore_half4(v * 2.0f, 1, out);
  float3 w = vloada_half3(1, in); vstore3(w, 2, f); vstorea_half3_rtz(w, 1, out);
}
// relational / select / common / geometric
int sel_s(int a, int b, int c) { return select(a, b, c); }
void sel_v(__global const int *a, __global const int *b, __global const int *c, __global const uint *u, __global int *o, __global float *fo, __global const float *fa) {
  vstore4(select(vload4(0, a), vload4(0, b), vload4(0, c)), 0, o);
  vstore4(select(vload4(0, a), vload4(0, b), vload4(0, u)), 1, o);
  vstore4(bitselect(vload4(0, a), vload4(0, b), vload4(0, c)), 2, o);
  vstore4(select(vload4(0, fa), vload4(1, fa), vload4(0, c)), 0, fo);
  vstore4(isless(vload4(0, fa), vload4(1, fa)), 3, o);
  vstore4(isnan(vload4(0, fa)) | signbit(vload4(1, fa)), 4, o);
  o[20] = isless(fa[0], fa[4]); o[21] = signbit(fa[5]); o[22] = any(vload4(0, c)); o[23] = all(vload4(0, c));
}
float bsel_f(float a, float b, float c) { return bitselect(a, b, c); }
float smooth(float e0, float e1, float x) { return smoothstep(e0, e1, x); }
void geo(__global const float *p, __global float *o) {
  float4 v = vload4(0, p);
  vstore4(normalize(v), 0, o);
  vstore3(normalize(v.xyz), 4, o);  // o[12..14]
  o[16] = length(v); o[17] = distance(v, v.wzyx); o[18] = dot(v, v.yxwz); o[19] = fast_length(v);
  vstore4(cross(v, v.yzxw), 5, o);   // o[20..23]
  vstore4(fast_normalize(v), 6, o);  // o[24..27]
  vstore2(normalize(v.xy), 14, o);   // o[28..29]
}
// math
#define M1(T, F) T F##_##T(T x) { return F(x); }
#define M2(T, F) T F##_##T(T x, T y) { return F(x, y); }
#define MATH1(T) M1(T, cbrt) M1(T, log1p) M1(T, expm1) M1(T, asinh) M1(T, acosh) M1(T, atanh) M1(T, sinpi) M1(T, cospi) M1(T, tanpi) M1(T, exp10) M1(T, asinpi) M1(T, acospi) M1(T, atanpi) M1(T, logb) M1(T, rsqrt) M1(T, erf) M1(T, tgamma) \
  M2(T, hypot) M2(T, remainder) M2(T, nextafter) M2(T, fdim) M2(T, maxmag) M2(T, minmag) M2(T, powr) M2(T, atan2pi) M2(T, fmod)
MATH1(float)
MATH1(double)
float rootn_float(float x, int n) { return rootn(x, n); } double rootn_double(double x, int n) { return rootn(x, n); }
float pown_float(float x, int n) { return pown(x, n); } double pown_double(double x, int n) { return pown(x, n); }
float ldexp_float(float x, int n) { return ldexp(x, n); } double ldexp_double(double x, int n) { return ldexp(x, n); }
int ilogb_float(float x) { return ilogb(x); } int ilogb_double(double x) { return ilogb(x); }
float remquo_float(float x, float y, __global int *q) { return remquo(x, y, q); }
double remquo_double(double x, double y, __global int *q) { return remquo(x, y, q); }
float fract_float(float x, __global float *i) { return fract(x, i); }
double fract_double(double x, __global double *i) { return fract(x, i); }
float frexp_float(float x, __global int *e) { return frexp(x, e); }
double frexp_double(double x, __global int *e) { return frexp(x, e); }
float modf_float(float x, __global float *i) { return modf(x, i); }
float lgr_float(float x, __global int *s) { return lgamma_r(x, s); }
float nan_float(uint c) { return nan(c); }
void shuf(__global const float *a, __global const uint *m, __global float *o, __global const char *c, __global char *co, __global long *lo, __global const double *d) {
  float4 x = vload4(0, a), y = vload4(1, a);
  vstore8(shuffle(x, vload8(0, m)), 0, o);            // o[0..7]
  vstore4(shuffle2(x, y, vload4(2, m)), 2, o);        // o[8..11]
  vstore2(shuffle(vload16(0, a), (uint2)(15, 17)), 6, o); // o[12..13]: a[15], a[1]
  char16 cc = vload16(0, c);
  vstore16(shuffle2(cc, cc + (char16)100, (uchar16)(31, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 255)), 0, co);
  double4 dv = vload4(0, d);
  vstore4(isgreater(dv, (double4)0.5) + isnan(dv) * 2, 0, lo);
  lo[4] = isgreater(d[0], 0.5); lo[5] = any((long2)(0, -1)); lo[6] = all((short3)(-1, -2, 5)); lo[7] = isnormal(d[3]);
  vstore4(convert_long4_sat_rte(dv * 1e19), 2, lo);   // lo[8..11]
  vstore4(convert_long4(select((uint4)(1, 2, 3, 4), (uint4)(5, 6, 7, 8), (int4)(0, -1, 1, INT_MIN))), 3, lo); // lo[12..15]
}
