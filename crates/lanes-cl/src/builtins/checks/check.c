// Numerical checks of builtins.cl: the wrappers of checks.cl (compiled with the library
// through the runtime's pipeline, then to native code) against C references: exhaustive
// half conversions, random conversions with saturation and every rounding mode (the
// reference rounds in hardware under fesetround), integer functions against __int128,
// math functions' errors in ulps against libm in double / long double, exact special
// cases. Built and run by run.sh.
#define _GNU_SOURCE
#include <stdio.h>
#include <stdint.h>
#include <math.h>
#include <fenv.h>
#include <string.h>
#include <stdlib.h>
typedef unsigned char uchar; typedef unsigned short ushort; typedef unsigned int uint; typedef unsigned long ulong;
#define D(R, N, ...) R N(__VA_ARGS__);
D(char,cv_char_sat_f,float) D(uchar,cv_uchar_sat_f,float) D(uchar,cv_uchar_sat_rte_f,float) D(int,cv_int_f,float) D(int,cv_int_sat_f,float)
D(int,cv_int_sat_rte_f,float) D(int,cv_int_sat_rtp_f,float) D(int,cv_int_sat_rtn_f,float) D(uint,cv_uint_sat_d,double) D(uint,cv_uint_sat_rte_d,double)
D(long,cv_long_sat_f,float) D(long,cv_long_sat_rte_d,double) D(ulong,cv_ulong_sat_d,double) D(ulong,cv_ulong_sat_rtp_f,float)
D(short,cv_short_sat_i,int) D(ushort,cv_ushort_sat_i,int) D(uchar,cv_uchar_sat_l,long) D(uint,cv_uint_sat_l,long) D(int,cv_int_sat_ui,uint)
D(long,cv_long_sat_ul,ulong) D(ulong,cv_ulong_sat_l,long) D(char,cv_char_sat_ul,ulong) D(char,cv_char_sat_uc,uchar)
D(float,cv_float_i,int) D(float,cv_float_rtz_i,int) D(float,cv_float_rtp_i,int) D(float,cv_float_rtn_i,int)
D(float,cv_float_rtz_l,long) D(float,cv_float_rtp_l,long) D(float,cv_float_rtn_l,long)
D(float,cv_float_rtz_ul,ulong) D(float,cv_float_rtp_ul,ulong) D(float,cv_float_rtn_ul,ulong)
D(double,cv_double_rtz_l,long) D(double,cv_double_rtp_ul,ulong) D(double,cv_double_rtn_l,long)
D(float,cv_float_d,double) D(float,cv_float_rtz_d,double) D(float,cv_float_rtp_d,double) D(float,cv_float_rtn_d,double)
#define DI2(N,T) D(T,N,T,T)
#define DI3(N,T) D(T,N,T,T,T)
DI2(mh_c,signed char) DI2(mh_uc,uchar) DI2(mh_s,short) DI2(mh_us,ushort) DI2(mh_i,int) DI2(mh_ui,uint) DI2(mh_l,long) DI2(mh_ul,ulong)
DI3(ms_c,signed char) DI3(ms_uc,uchar) DI3(ms_s,short) DI3(ms_us,ushort) DI3(ms_i,int) DI3(ms_ui,uint) DI3(ms_l,long) DI3(ms_ul,ulong)
DI2(as_c,signed char) DI2(as_uc,uchar) DI2(as_s,short) DI2(as_us,ushort) DI2(as_i,int) DI2(as_ui,uint) DI2(as_l,long) DI2(as_ul,ulong)
DI2(ss_c,signed char) DI2(ss_uc,uchar) DI2(ss_s,short) DI2(ss_us,ushort) DI2(ss_i,int) DI2(ss_ui,uint) DI2(ss_l,long) DI2(ss_ul,ulong)
DI2(rot_c,signed char) DI2(rot_uc,uchar) DI2(rot_s,short) DI2(rot_i,int) DI2(rot_l,long) DI2(rot_ul,ulong)
DI2(hadd_i,int) DI2(rhadd_i,int) DI2(hadd_uc,uchar) DI2(rhadd_c,signed char) DI2(hadd_ul,ulong) DI2(rhadd_l,long)
DI2(mul24_i,int) DI3(mad24_i,int) DI3(madhi_i,int)
D(signed char,clz_c,signed char) D(short,clz_s,short) D(int,clz_i,int) D(long,clz_l,long) D(uchar,pop_uc,uchar) D(int,pop_i,int) D(long,pop_l,long)
D(uchar,abs_c,signed char) D(uint,abs_i,int) D(ulong,abs_l,long) D(uchar,absd_c,signed char,signed char) D(uint,absd_i,int,int) D(ulong,absd_l,long,long)
D(short,ups_c,signed char,uchar) D(long,ups_i,int,uint)
D(float,h2f,ushort) D(ushort,f2h,float) D(ushort,f2h_rtz,float) D(ushort,f2h_rtp,float) D(ushort,f2h_rtn,float)
D(ushort,d2h,double) D(ushort,d2h_rtz,double) D(ushort,d2h_rtp,double) D(ushort,d2h_rtn,double)
D(void,h_roundtrip4,const ushort*,ushort*,float*)
D(int,sel_s,int,int,int) D(void,sel_v,const int*,const int*,const int*,const uint*,int*,float*,const float*) D(float,bsel_f,float,float,float)
D(float,smooth,float,float,float) D(void,geo,const float*,float*)
#define DM(T) D(T,cbrt_##T,T) D(T,log1p_##T,T) D(T,expm1_##T,T) D(T,asinh_##T,T) D(T,acosh_##T,T) D(T,atanh_##T,T) D(T,sinpi_##T,T) D(T,cospi_##T,T) D(T,tanpi_##T,T) D(T,exp10_##T,T) D(T,asinpi_##T,T) D(T,acospi_##T,T) D(T,atanpi_##T,T) D(T,logb_##T,T) D(T,rsqrt_##T,T) D(T,erf_##T,T) D(T,tgamma_##T,T) \
  D(T,hypot_##T,T,T) D(T,remainder_##T,T,T) D(T,nextafter_##T,T,T) D(T,fdim_##T,T,T) D(T,maxmag_##T,T,T) D(T,minmag_##T,T,T) D(T,powr_##T,T,T) D(T,atan2pi_##T,T,T) D(T,fmod_##T,T,T) \
  D(T,rootn_##T,T,int) D(T,pown_##T,T,int) D(T,ldexp_##T,T,int) D(int,ilogb_##T,T) D(T,remquo_##T,T,T,int*) D(T,fract_##T,T,T*) D(T,frexp_##T,T,int*)
DM(float) DM(double)
D(float,modf_float,float,float*) D(float,lgr_float,float,int*) D(float,nan_float,uint)

static int fails = 0, checks = 0;
#define CHECK(cond, ...) do { checks++; if (!(cond)) { if (fails++ < 40) { printf("FAIL %s:%d: ", __func__, __LINE__); printf(__VA_ARGS__); printf("\n"); } } } while (0)
static uint64_t rs = 88172645463325252ull;
static uint64_t rnd(void) { rs ^= rs << 13; rs ^= rs >> 7; rs ^= rs << 17; return rs; }
static float rf(void) { uint32_t u = (uint32_t)rnd(); float f; memcpy(&f, &u, 4); return f; }
static double rdd(void) { uint64_t u = rnd(); double d; memcpy(&d, &u, 8); return d; }
static uint32_t fb(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static uint64_t db(double f) { uint64_t u; memcpy(&u, &f, 8); return u; }
static int same_f(float a, float b) { return (isnan(a) && isnan(b)) || fb(a) == fb(b); }
static int same_d(double a, double b) { return (isnan(a) && isnan(b)) || db(a) == db(b); }
// ulp distance, both finite or both same special
static double ulps_f(float got, double ref) {
  if (isnan(ref) || isnan(got)) return (isnan(ref) && isnan(got)) ? 0 : 1e9;
  if (isinf(ref) || isinf(got)) return ((float)ref == got) ? 0 : 1e9;
  double a = fabs(ref); int e; frexp(a, &e); double ulp = ldexp(1.0, (e - 24 < -149 ? -149 : e - 24));
  return fabs((double)got - ref) / ulp;
}
static double ulps_d(double got, long double ref) {
  if (isnan((double)ref) || isnan(got)) return (isnan((double)ref) && isnan(got)) ? 0 : 1e9;
  if (isinf((double)ref) || isinf(got)) return ((double)ref == got) ? 0 : 1e9;
  long double a = fabsl(ref); int e; frexpl(a, &e); long double ulp = ldexpl(1.0L, (e - 53 < -1074 ? -1074 : e - 53));
  return (double)(fabsl((long double)got - ref) / ulp);
}

static long long clampll(long double v, long double lo, long double hi) { return v < lo ? (long long)lo : v > hi ? (long long)hi : (long long)v; }
static void conversions(void) {
  float fsp[] = {0, -0.0f, 0.5f, -0.5f, 1.5f, 2.5f, -2.5f, 127.4f, 127.5f, 128.0f, -128.5f, -129.0f, 255.5f, 256.0f, 1e10f, -1e10f, INFINITY, -INFINITY, NAN, 2147483520.0f, 2147483648.0f, -2147483648.0f, -2147483904.0f, 9.2233715e18f, 9.223372e18f, 1.8446743e19f, 1.9e19f, 0.9999999f, -0.9999999f};
  for (int k = 0; k < 2000000; k++) {
    float x = k < (int)(sizeof fsp / sizeof *fsp) ? fsp[k] : (k & 1 ? rf() : (float)((int64_t)rnd() >> (rnd() & 63)) * (k & 2 ? 0.37f : 1.0f));
    long double t = truncl(x);
    if (isnan(x)) { CHECK(cv_char_sat_f(x) == 0 && cv_int_sat_f(x) == 0 && cv_long_sat_f(x) == 0 && cv_ulong_sat_rtp_f(x) == 0, "nan sat"); continue; }
    CHECK(cv_char_sat_f(x) == clampll(t, -128, 127), "char_sat(%a) = %d", x, cv_char_sat_f(x));
    CHECK(cv_uchar_sat_f(x) == clampll(t, 0, 255), "uchar_sat(%a) = %d", x, cv_uchar_sat_f(x));
    CHECK(cv_uchar_sat_rte_f(x) == clampll(rintl(x), 0, 255), "uchar_sat_rte(%a) = %d", x, cv_uchar_sat_rte_f(x));
    CHECK(cv_int_sat_f(x) == clampll(t, INT32_MIN, INT32_MAX), "int_sat(%a) = %d", x, cv_int_sat_f(x));
    CHECK(cv_int_sat_rte_f(x) == clampll(rintl(x), INT32_MIN, INT32_MAX), "int_sat_rte(%a)=%d", x, cv_int_sat_rte_f(x));
    CHECK(cv_int_sat_rtp_f(x) == clampll(ceill(x), INT32_MIN, INT32_MAX), "int_sat_rtp(%a)=%d", x, cv_int_sat_rtp_f(x));
    CHECK(cv_int_sat_rtn_f(x) == clampll(floorl(x), INT32_MIN, INT32_MAX), "int_sat_rtn(%a)=%d", x, cv_int_sat_rtn_f(x));
    if (fabsl(t) < 2147483648.0L) CHECK(cv_int_f(x) == (int)t, "int(%a)", x);
    CHECK(cv_long_sat_f(x) == clampll(t, (long double)INT64_MIN, (long double)INT64_MAX), "long_sat(%a)=%ld", x, cv_long_sat_f(x));
    { long double c = ceill(x); ulong ref = c <= 0 ? 0 : c >= 18446744073709551616.0L ? UINT64_MAX : (ulong)c;
      CHECK(cv_ulong_sat_rtp_f(x) == ref, "ulong_sat_rtp(%a)=%lu", x, cv_ulong_sat_rtp_f(x)); }
    double d = (double)x * (k & 4 ? 1.0 : 1.0000001);
    { long double tt = truncl(d); uint ref = tt <= 0 ? 0 : tt >= 4294967295.0L ? UINT32_MAX : (uint)tt; CHECK(cv_uint_sat_d(d) == ref, "uint_sat(%a)", d); }
    { long double tt = rintl(d); uint ref = tt <= 0 ? 0 : tt >= 4294967295.0L ? UINT32_MAX : (uint)tt; CHECK(cv_uint_sat_rte_d(d) == ref, "uint_sat_rte(%a)", d); }
    { long double tt = rintl(d); CHECK(cv_long_sat_rte_d(d) == clampll(tt, (long double)INT64_MIN, (long double)INT64_MAX), "long_sat_rte(%a)", d); }
    { long double tt = truncl(d); ulong ref = tt <= 0 ? 0 : tt >= 18446744073709551616.0L ? UINT64_MAX : (ulong)tt; CHECK(cv_ulong_sat_d(d) == ref, "ulong_sat(%a)", d); }
  }
  for (int k = 0; k < 2000000; k++) {
    uint64_t r = rnd(); int sh = rnd() & 63; long l = (long)r >> sh; ulong ul = r >> sh; int i = (int)l; uint ui = (uint)ul;
    if (k < 8) { long sp[] = {0, -1, INT64_MIN, INT64_MAX, 1L << 24, (1L << 24) + 1, (1L << 53) + 1, -(1L << 53) - 1}; l = sp[k]; ul = (ulong)l; i = (int)l; ui = (uint)ul; }
    CHECK(cv_short_sat_i(i) == clampll(i, -32768, 32767), "short_sat(%d)", i);
    CHECK(cv_ushort_sat_i(i) == clampll(i, 0, 65535), "ushort_sat(%d)", i);
    CHECK(cv_uchar_sat_l(l) == clampll(l, 0, 255), "uchar_sat(%ld)", l);
    CHECK(cv_uint_sat_l(l) == clampll(l, 0, UINT32_MAX), "uint_sat(%ld)", l);
    CHECK(cv_int_sat_ui(ui) == (ui > INT32_MAX ? INT32_MAX : (int)ui), "int_sat(%u)", ui);
    CHECK(cv_long_sat_ul(ul) == (ul > INT64_MAX ? INT64_MAX : (long)ul), "long_sat(%lu)", ul);
    CHECK(cv_ulong_sat_l(l) == (l < 0 ? 0 : (ulong)l), "ulong_sat(%ld)", l);
    CHECK(cv_char_sat_ul(ul) == (ul > 127 ? 127 : (char)ul), "char_sat(%lu)", ul);
    CHECK(cv_char_sat_uc((uchar)ul) == ((uchar)ul > 127 ? 127 : (char)ul), "char_sat(uc %u)", (uchar)ul);
    // directed int -> float: reference by the hardware rounding mode
    static const int modes[3] = {FE_TOWARDZERO, FE_UPWARD, FE_DOWNWARD};
    float fr[3][4]; double dr[3][2];
    for (int m = 0; m < 3; m++) { fesetround(modes[m]); volatile long vl = l; volatile ulong vul = ul; volatile int vi = i; volatile double vd = (double)l * 1.0000000001 + (k & 1 ? 1e-300 : 0);
      fr[m][0] = (float)vi; fr[m][1] = (float)vl; fr[m][2] = (float)vul; fr[m][3] = (float)vd; dr[m][0] = (double)vl; dr[m][1] = (double)vul; }
    fesetround(FE_TONEAREST);
    CHECK(cv_float_i(i) == (float)i, "float(%d)", i);
    CHECK(same_f(cv_float_rtz_i(i), fr[0][0]) && same_f(cv_float_rtp_i(i), fr[1][0]) && same_f(cv_float_rtn_i(i), fr[2][0]), "float_rt?(int %d)", i);
    CHECK(same_f(cv_float_rtz_l(l), fr[0][1]) && same_f(cv_float_rtp_l(l), fr[1][1]) && same_f(cv_float_rtn_l(l), fr[2][1]), "float_rt?(long %ld): %a %a %a vs %a %a %a", l, cv_float_rtz_l(l), cv_float_rtp_l(l), cv_float_rtn_l(l), fr[0][1], fr[1][1], fr[2][1]);
    CHECK(same_f(cv_float_rtz_ul(ul), fr[0][2]) && same_f(cv_float_rtp_ul(ul), fr[1][2]) && same_f(cv_float_rtn_ul(ul), fr[2][2]), "float_rt?(ulong %lu)", ul);
    CHECK(same_d(cv_double_rtz_l(l), dr[0][0]) && same_d(cv_double_rtn_l(l), dr[2][0]) && same_d(cv_double_rtp_ul(ul), dr[1][1]), "double_rt?(%ld)", l);
    volatile double vd = (double)l * 1.0000000001 + (k & 1 ? 1e-300 : 0);
    if (k % 3 == 0) vd = rdd();
    CHECK(same_f(cv_float_d(vd), (float)vd) && same_f(cv_float_rtz_d(vd), fr[0][3]) && same_f(cv_float_rtp_d(vd), fr[1][3]) && same_f(cv_float_rtn_d(vd), fr[2][3]) || k % 3 == 0, "float_rt?(double %a)", (double)vd);
    if (k % 3 == 0) { double x = vd; float r3[3]; for (int m = 0; m < 3; m++) { fesetround(modes[m]); volatile double v = x; r3[m] = (float)v; } fesetround(FE_TONEAREST);
      CHECK(same_f(cv_float_rtz_d(x), r3[0]) && same_f(cv_float_rtp_d(x), r3[1]) && same_f(cv_float_rtn_d(x), r3[2]), "float_rt?(double %a): %a %a %a vs %a %a %a", x, cv_float_rtz_d(x), cv_float_rtp_d(x), cv_float_rtn_d(x), r3[0], r3[1], r3[2]); }
  }
}

static void integers(void) {
  for (int k = 0; k < 3000000; k++) {
    uint64_t a = rnd(), b = rnd(), c = rnd();
    if (k < 64) { uint64_t sp[] = {0, 1, -1ull, 0x8000000000000000ull, 0x7fffffffffffffffull, 0x80, 0x7f, 0xff}; a = sp[k & 7]; b = sp[k >> 3]; c = sp[(k * 5) & 7]; }
    __int128 p;
    p = (__int128)(long)a * (long)b; CHECK(mh_l(a, b) == (long)(p >> 64), "mul_hi(long %ld,%ld)", (long)a, (long)b);
    { unsigned __int128 q = (unsigned __int128)a * b; CHECK(mh_ul(a, b) == (ulong)(q >> 64), "mul_hi(ulong)");
      unsigned __int128 s = q + c; ulong ref = (s >> 64) ? UINT64_MAX : (ulong)s; CHECK(ms_ul(a, b, c) == ref, "mad_sat(ulong %lx %lx %lx) = %lx vs %lx", a, b, c, ms_ul(a, b, c), ref); }
    { __int128 s = (__int128)(long)a * (long)b + (long)c; long ref = s > INT64_MAX ? INT64_MAX : s < INT64_MIN ? INT64_MIN : (long)s; CHECK(ms_l(a, b, c) == ref, "mad_sat(long %ld %ld %ld) = %ld vs %ld", (long)a, (long)b, (long)c, ms_l(a, b, c), ref); }
    CHECK(mh_i(a, b) == (int)(((long)(int)a * (int)b) >> 32), "mul_hi int"); CHECK(mh_ui(a, b) == (uint)(((ulong)(uint)a * (uint)b) >> 32), "mul_hi uint");
    CHECK(mh_s(a, b) == (short)(((int)(short)a * (short)b) >> 16), "mul_hi short"); CHECK(mh_us(a, b) == (ushort)(((uint)(ushort)a * (ushort)b) >> 16), "mul_hi ushort");
    CHECK(mh_c(a, b) == (signed char)(((int)(signed char)a * (signed char)b) >> 8), "mul_hi char"); CHECK(mh_uc(a, b) == (uchar)(((uint)(uchar)a * (uchar)b) >> 8), "mul_hi uchar");
    { long s = (long)(int)a * (int)b + (int)c; CHECK(ms_i(a, b, c) == (s > INT32_MAX ? INT32_MAX : s < INT32_MIN ? INT32_MIN : (int)s), "mad_sat int"); }
    { ulong s = (ulong)(uint)a * (uint)b + (uint)c; CHECK(ms_ui(a, b, c) == (s > UINT32_MAX ? UINT32_MAX : (uint)s), "mad_sat uint"); }
    { long s = (long)(short)a * (short)b + (short)c; CHECK(ms_s(a, b, c) == (s > 32767 ? 32767 : s < -32768 ? -32768 : (short)s), "mad_sat short"); }
    { long s = (long)(ushort)a * (ushort)b + (ushort)c; CHECK(ms_us(a, b, c) == (s > 65535 ? 65535 : (ushort)s), "mad_sat ushort %u %u %u -> %u", (ushort)a, (ushort)b, (ushort)c, ms_us(a,b,c)); }
    { long s = (long)(signed char)a * (signed char)b + (signed char)c; CHECK(ms_c(a, b, c) == (s > 127 ? 127 : s < -128 ? -128 : (signed char)s), "mad_sat char"); }
    { long s = (long)(uchar)a * (uchar)b + (uchar)c; CHECK(ms_uc(a, b, c) == (s > 255 ? 255 : (uchar)s), "mad_sat uchar"); }
#define SATCHK(fn, T, op, lo, hi) { __int128 s = (__int128)(T)a op (__int128)(T)b; CHECK(fn(a, b) == (T)(s < (__int128)(lo) ? (lo) : s > (__int128)(hi) ? (hi) : s), #fn); }
    SATCHK(as_c, signed char, +, -128, 127) SATCHK(as_uc, uchar, +, 0, 255) SATCHK(as_s, short, +, -32768, 32767) SATCHK(as_us, ushort, +, 0, 65535)
    SATCHK(as_i, int, +, INT32_MIN, INT32_MAX) SATCHK(as_ui, uint, +, 0, UINT32_MAX) SATCHK(as_l, long, +, INT64_MIN, INT64_MAX) SATCHK(as_ul, ulong, +, 0, UINT64_MAX)
    SATCHK(ss_c, signed char, -, -128, 127) SATCHK(ss_uc, uchar, -, 0, 255) SATCHK(ss_s, short, -, -32768, 32767) SATCHK(ss_us, ushort, -, 0, 65535)
    SATCHK(ss_i, int, -, INT32_MIN, INT32_MAX) SATCHK(ss_ui, uint, -, 0, UINT32_MAX) SATCHK(ss_l, long, -, INT64_MIN, INT64_MAX) SATCHK(ss_ul, ulong, -, 0, UINT64_MAX)
#define ROT(fn, UT, W) { UT x = (UT)a; int n = (int)((UT)b % W); UT r = n ? (UT)((x << n) | (x >> (W - n))) : x; CHECK((UT)fn(a, b) == r, #fn " %lx %lx", (ulong)(UT)a, (ulong)(UT)b); }
    ROT(rot_c, uchar, 8) ROT(rot_uc, uchar, 8) ROT(rot_s, ushort, 16) ROT(rot_i, uint, 32) ROT(rot_l, ulong, 64) ROT(rot_ul, ulong, 64)
    CHECK(hadd_i(a, b) == (int)(((long)(int)a + (int)b) >> 1), "hadd int"); CHECK(rhadd_i(a, b) == (int)(((long)(int)a + (int)b + 1) >> 1), "rhadd int");
    CHECK(hadd_uc(a, b) == (uchar)(((uint)(uchar)a + (uchar)b) >> 1), "hadd uchar"); CHECK(rhadd_c(a, b) == (signed char)(((int)(signed char)a + (signed char)b + 1) >> 1), "rhadd char");
    CHECK(hadd_ul(a, b) == (ulong)(((unsigned __int128)a + b) >> 1), "hadd ulong"); CHECK(rhadd_l(a, b) == (long)(((__int128)(long)a + (long)b + 1) >> 1), "rhadd long");
    { int x = ((int)((uint)a << 8)) >> 8, y = ((int)((uint)b << 8)) >> 8; CHECK(mul24_i(x, y) == (int)((long)x * y), "mul24"); CHECK(mad24_i(x, y, (int)c) == (int)((uint)((long)x * y) + (uint)c), "mad24"); }
    CHECK(madhi_i(a, b, c) == (int)((uint)mh_i(a, b) + (uint)c), "mad_hi");
    CHECK(clz_c(a) == (signed char)((uchar)a ? __builtin_clz((uchar)a) - 24 : 8), "clz char"); CHECK(clz_s(a) == (short)((ushort)a ? __builtin_clz((ushort)a) - 16 : 16), "clz short");
    CHECK(clz_i(a >> (b & 31)) == ((uint)(a >> (b & 31)) ? __builtin_clz((uint)(a >> (b & 31))) : 32), "clz int"); CHECK(clz_l(a >> (b & 63)) == ((a >> (b & 63)) ? __builtin_clzl(a >> (b & 63)) : 64), "clz long");
    CHECK(pop_uc(a) == __builtin_popcount((uchar)a) && pop_i(a) == __builtin_popcount((uint)a) && pop_l(a) == __builtin_popcountl(a), "popcount");
    CHECK(abs_c(a) == (uchar)((signed char)a < 0 ? -(int)(signed char)a : (signed char)a), "abs char"); CHECK(abs_i(a) == (uint)((int)a < 0 ? -(long)(int)a : (int)a), "abs int");
    CHECK(abs_l(a) == ((long)a < 0 ? -a : a), "abs long"); CHECK(absd_c(a, b) == (uchar)abs((signed char)a - (signed char)b), "abs_diff char");
    CHECK(absd_i(a, b) == (uint)labs((long)(int)a - (int)b), "abs_diff int"); { __int128 dd = (__int128)(long)a - (long)b; CHECK(absd_l(a, b) == (ulong)(dd < 0 ? -dd : dd), "abs_diff long"); }
    CHECK(ups_c(a, b) == (short)(((uint)(uchar)a << 8) | (uchar)b), "upsample char"); CHECK(ups_i(a, b) == (long)(((ulong)(uint)a << 32) | (uint)b), "upsample int");
  }
}

static float half_ref(ushort h) { _Float16 f; memcpy(&f, &h, 2); return (float)f; }
static void halves(void) {
  for (uint h = 0; h < 65536; h++) { float r = half_ref(h), g = h2f(h); CHECK(same_f(g, r) && (isnan(r) ? (fb(g) & 0x80000000u) == ((h & 0x8000u) << 16) : 1), "h2f(%04x) = %a vs %a", h, g, r); }
  // every half value round-trips in every mode; values between halves round correctly
  for (int k = 0; k < 3000000; k++) {
    float x;
    if (k < 65536) { ushort h = k; x = half_ref(h); if (isnan(x)) continue; CHECK(f2h(x) == h && f2h_rtz(x) == h && f2h_rtp(x) == h && f2h_rtn(x) == h && d2h(x) == h && d2h_rtn(x) == h, "f2h exact %04x", h); continue; }
    x = (k & 1) ? rf() : ldexpf((float)(rnd() & 0xffffff) / 16777216.0f, (int)(rnd() % 44) - 30) * (rnd() & 1 ? 1 : -1);
    _Float16 rn = (_Float16)x; ushort rb; memcpy(&rb, &rn, 2);
    ushort g = f2h(x);
    CHECK(isnan(x) ? ((g & 0x7c00) == 0x7c00 && (g & 0x3ff)) : g == rb, "f2h(%a) = %04x vs %04x", x, g, rb);
    if (isnan(x)) continue;
    // directed: result brackets x and is adjacent to the other direction
    float z = half_ref(f2h_rtz(x)), up = half_ref(f2h_rtp(x)), dn = half_ref(f2h_rtn(x));
    CHECK(up >= x && dn <= x && (up == dn ? up == x : 1), "rtp/rtn bracket %a: %a %a", x, up, dn);
    CHECK(fabsf(z) <= fabsf(x) && (x >= 0 ? z == dn : z == up), "rtz %a -> %a", x, z);
    if (up != dn) { ushort a = f2h_rtn(x), b = f2h_rtp(x); int ia = (a & 0x8000) ? -(a & 0x7fff) : a, ib = (b & 0x8000) ? -(b & 0x7fff) : b; CHECK(ib - ia == 1 || (a == 0x8000 && b == 0x0001) || (a == 0x8001 && b == 0x0000) || (a==0x8001 && b==0x8000), "adjacent %a: %04x %04x", x, a, b); }
    double d = (double)x * (1.0 + ldexp((double)(rnd() & 0xffff), -40));
    _Float16 dr = (_Float16)d; ushort drb; memcpy(&drb, &dr, 2);
    CHECK(d2h(d) == drb, "d2h(%a) = %04x vs %04x", d, d2h(d), drb);
    float dz = half_ref(d2h_rtz(d)), dup = half_ref(d2h_rtp(d)), ddn = half_ref(d2h_rtn(d));
    CHECK(dup >= d && ddn <= d && fabs(dz) <= fabs(d) && (d >= 0 ? dz == ddn : dz == dup), "d2h directed %a: %a %a %a", d, dz, dup, ddn);
  }
  CHECK(f2h(65520.0f) == 0x7c00 && f2h(65519.99f) == 0x7bff && f2h_rtz(1e10f) == 0x7bff && f2h_rtp(1e10f) == 0x7c00 && f2h_rtn(-1e10f) == 0xfc00 && f2h_rtz(-INFINITY) == 0xfc00, "overflow");
  CHECK(f2h_rtp(1e-30f) == 1 && f2h_rtn(1e-30f) == 0 && f2h_rtn(-1e-30f) == 0x8001 && f2h(-0.0f) == 0x8000, "underflow");
  ushort in[12], out[16] = {0}; float fo[16] = {0};
  for (int k = 0; k < 12; k++) { _Float16 t = (_Float16)(k * 1.5f - 3); memcpy(&in[k], &t, 2); }
  h_roundtrip4(in, out, fo);
  CHECK(fo[0] == 3.0f && fo[3] == 7.5f, "vload_half4 %g %g", fo[0], fo[3]);
  CHECK(half_ref(out[7]) == 15.0f, "vstore_half4 %g", half_ref(out[7]));
  CHECK(fo[6] == 3.0f && fo[8] == 6.0f && half_ref(out[4]) == 3.0f && half_ref(out[6]) == 6.0f, "vloada_half3 %g %g", fo[6], fo[8]);
}

static void relational(void) {
  int a[4] = {1, 2, 3, 4}, b[4] = {10, 20, 30, 40}, c[4] = {-1, 0, 5, INT32_MIN}; uint u[4] = {0x80000000u, 1, 0xffffffffu, 0}; int o[24]; float fo[4];
  float fa[8] = {1, NAN, -0.0f, 4, 0.5f, -0.0f, 3, 5};
  sel_v(a, b, c, u, o, fo, fa);
  CHECK(o[0] == 10 && o[1] == 2 && o[2] == 3 && o[3] == 40, "select(int4, int4) %d %d %d %d", o[0], o[1], o[2], o[3]);
  CHECK(o[4] == 10 && o[5] == 2 && o[6] == 30 && o[7] == 4, "select(uint4 mask) %d %d %d %d", o[4], o[5], o[6], o[7]);
  CHECK(o[8] == ((1 & ~-1) | (10 & -1)) && o[9] == 2 && o[10] == ((3 & ~5) | (30 & 5)), "bitselect");
  CHECK(fo[0] == 0.5f && fo[1] != fo[1] && fo[3] == 5, "select float4");
  CHECK(o[12] == 0 && o[13] == 0 && o[14] == -1 && o[15] == -1, "isless vector %d %d %d %d", o[12], o[13], o[14], o[15]);
  CHECK(o[16] == 0 && o[17] == -1 && o[18] == 0 && o[19] == 0, "isnan|signbit vector %d %d %d %d", o[16], o[17], o[18], o[19]);
  CHECK(o[20] == 0 && o[21] == 1 && o[22] == 1 && o[23] == 0, "scalar rel %d %d any %d all %d", o[20], o[21], o[22], o[23]);
  CHECK(sel_s(1, 2, 0) == 1 && sel_s(1, 2, 5) == 2 && sel_s(1, 2, -1) == 2, "select scalar");
  CHECK(bsel_f(1.0f, -2.0f, -0.0f) == -1.0f, "bitselect float %g", bsel_f(1.0f, -2.0f, -0.0f));
  CHECK(smooth(0, 1, 0.5f) == 0.5f && smooth(0, 1, -1) == 0 && smooth(0, 1, 2) == 1 && fabsf(smooth(0, 2, 0.5f) - 0.15625f) < 1e-7f, "smoothstep");
  float p[4] = {3, 4, 0, 0}, g[32];
  geo(p, g);
  CHECK(g[0] == 0.6f && g[1] == 0.8f && g[2] == 0 && g[16] == 5 && g[12] == 0.6f && g[13] == 0.8f, "normalize/length %g %g %g", g[0], g[1], g[16]);
  CHECK(fabsf(g[17] - sqrtf(2 * 9 + 2 * 16)) < 1e-6f && g[18] == 24 && fabsf(g[19] - 5) < 5e-3f, "distance/dot/fast_length %g %g %g", g[17], g[18], g[19]);
  CHECK(g[20] == 12 && g[21] == -9 && g[22] == -16 && g[23] == 0, "cross %g %g %g %g", g[20], g[21], g[22], g[23]);
  CHECK(fabsf(g[24] - 0.6f) < 1e-3f && g[28] == 0.6f && g[29] == 0.8f, "fast_normalize / normalize2");
  float big[4] = {3e30f, 4e30f, 0, 0}, tiny[4] = {3e-30f, 4e-30f, 0, 0}, inf[4] = {INFINITY, -INFINITY, 1, 0}, zero[4] = {0, -0.0f, 0, 0};
  geo(big, g); CHECK(fabsf(g[0] - 0.6f) <= 0x1p-24f && fabsf(g[16] - 5e30f) <= 2 * 0x1p79f, "normalize big %a %a %a", g[0], g[1], g[16]);
  geo(tiny, g); CHECK(g[0] == 0.6f && fabsf(g[16] - 5e-30f) < 1e-36f, "normalize tiny %g %g", g[0], g[16]);
  geo(inf, g); CHECK(fabsf(g[0] - 0.70710677f) < 1e-7f && fabsf(g[1] + 0.70710677f) < 1e-7f && g[2] == 0 && isinf(g[16]), "normalize inf %g %g %g", g[0], g[1], g[2]);
  geo(zero, g); CHECK(g[0] == 0 && g[16] == 0 && signbit(g[1]), "normalize zero");
}

#define ULPCHK_F(name, fn, refexpr, lim) { double r = (refexpr); float gv = fn; double e = ulps_f(gv, r); if (e > maxe[0]) maxe[0] = e; CHECK(e <= lim, "%s(%a[,%a]) = %a ref %a (%.2f ulp)", name, x, y, gv, r, e); }
#define ULPCHK_D(name, fn, refexpr, lim) { long double r = (refexpr); double gv = fn; double e = ulps_d(gv, r); if (e > maxe[1]) maxe[1] = e; CHECK(e <= lim, "%s(%a[,%a]) = %a ref %La (%.2f ulp)", name, dx, dy, gv, r, e); }
static long double sinpil(long double x) { long double r = x - 2 * rintl(x / 2); r = r > 0.5L ? 1 - r : r < -0.5L ? -1 - r : r; return r == 0 ? copysignl(0, x) : sinl(3.14159265358979323846264338327950288L * r); }
static long double cospil(long double x) { long double r = fabsl(x - 2 * rintl(x / 2)); return r == 0.5L ? 0 : sinpil(0.5L - r); }
static void maths(void) {
  double maxe[2];
  const long double PI = 3.14159265358979323846264338327950288L;
#define RUN(NAME, LIMF, LIMD, GENF, GEND, FCALL, FREF, DCALL, DREF) { maxe[0] = maxe[1] = 0; \
  for (int k = 0; k < 300000; k++) { float x = GENF, y = rf(); double dx = GEND, dy = rdd(); (void)y; (void)dy; \
    ULPCHK_F(NAME, FCALL, FREF, LIMF) ULPCHK_D(NAME, DCALL, DREF, LIMD) } \
  printf("  %-10s max err: float %.3f ulp, double %.3f ulp\n", NAME, maxe[0], maxe[1]); }
#define GF_ANY rf()
#define GF_SM ldexpf((float)(rnd() & 0xffffff) / 16777216.0f, (int)(rnd() % 60) - 40) * (rnd() & 1 ? 1 : -1)
#define GD_ANY rdd()
#define GD_SM ldexp((double)(rnd() >> 11) / 9007199254740992.0, (int)(rnd() % 120) - 80) * (rnd() & 1 ? 1 : -1)
  RUN("cbrt", 1, 2, GF_ANY, GD_ANY, cbrt_float(x), cbrt((double)x), cbrt_double(dx), cbrtl(dx))
  RUN("log1p", 1, 3, (k & 1 ? GF_SM : GF_ANY), (k & 1 ? GD_SM : GD_ANY), log1p_float(x), log1p((double)x), log1p_double(dx), log1pl(dx))
  RUN("expm1", 1, 3, GF_SM, GD_SM, expm1_float(x), expm1((double)x), expm1_double(dx), expm1l(dx))
  RUN("asinh", 1, 4, (k & 1 ? GF_SM : GF_ANY), (k & 1 ? GD_SM : GD_ANY), asinh_float(x), asinh((double)x), asinh_double(dx), asinhl(dx))
  RUN("acosh", 1, 4, fabsf(GF_SM) + 1, fabs(GD_SM) + 1, acosh_float(x), acosh((double)x), acosh_double(dx), acoshl(dx))
  RUN("atanh", 1, 5, GF_SM, GD_SM, atanh_float(x), atanh((double)x), atanh_double(dx), atanhl(dx))
  RUN("sinpi", 1, 4, (k & 1 ? GF_SM * 1000 : GF_ANY), (k & 1 ? GD_SM * 1000 : GD_ANY), sinpi_float(x), (double)sinpil(x), sinpi_double(dx), sinpil(dx))
  RUN("cospi", 1, 4, (k & 1 ? GF_SM * 1000 : GF_ANY), (k & 1 ? GD_SM * 1000 : GD_ANY), cospi_float(x), (double)cospil(x), cospi_double(dx), cospil(dx))
  RUN("tanpi", 1, 6, GF_SM * 100, GD_SM * 100, tanpi_float(x), (double)(sinpil(x) / cospil(x)), tanpi_double(dx), sinpil(dx) / cospil(dx))
  RUN("exp10", 1, 2, GF_SM * 40, GD_SM * 300, exp10_float(x), (double)exp10l(x), exp10_double(dx), exp10l(dx))
  RUN("asinpi", 1, 5, GF_SM, GD_SM, asinpi_float(x), (double)(asinl(x) / PI), asinpi_double(dx), asinl(dx) / PI)
  RUN("acospi", 1, 5, GF_SM, GD_SM, acospi_float(x), (double)(acosl(x) / PI), acospi_double(dx), acosl(dx) / PI)
  RUN("atanpi", 1, 5, GF_ANY, GD_ANY, atanpi_float(x), (double)(atanl(x) / PI), atanpi_double(dx), atanl(dx) / PI)
  RUN("atan2pi", 1, 6, GF_ANY, GD_ANY, atan2pi_float(x, y), (double)(atan2l(x, y) / PI), atan2pi_double(dx, dy), atan2l(dx, dy) / PI)
  RUN("hypot", 1, 2, GF_ANY, GD_ANY, hypot_float(x, y), hypot((double)x, (double)y), hypot_double(dx, dy), hypotl(dx, dy))
  RUN("rootn5", 1, 2, GF_ANY, GD_ANY, rootn_float(x, 5), (double)(x < 0 ? -powl(-(long double)x, 1.0L / 5) : powl(x, 1.0L / 5)), rootn_double(dx, 5), dx < 0 ? -powl(-(long double)dx, 1.0L / 5) : powl(dx, 1.0L / 5))
  RUN("rootn-4", 1, 2, fabsf(GF_ANY), fabs(GD_ANY), rootn_float(x, -4), (double)powl(x, -1.0L / 4), rootn_double(dx, -4), powl(dx, -1.0L / 4))
  RUN("pown", 1, 2, GF_SM * 10, GD_SM * 10, pown_float(x, (int)(y) % 30), (double)powl(x, (int)(y) % 30), pown_double(dx, (int)(y) % 30), powl(dx, (int)(y) % 30))
  RUN("remainder", 0, 0, GF_ANY, GD_ANY, remainder_float(x, y), remainderf(x, y), remainder_double(dx, dy), remainder(dx, dy))
  { int n1 = 0; RUN("ldexp", 0, 0, GF_ANY, GD_ANY, ldexp_float(x, n1), ldexpf(x, (n1 = (int)(rnd() % 600) - 300)), ldexp_double(dx, n1 * 7), ldexp(dx, (n1 = (int)(rnd() % 600) - 300) * 7)) }
  RUN("fmod", 0, 0, GF_ANY, GD_ANY, fmod_float(x, y), fmodf(x, y), fmod_double(dx, dy), fmod(dx, dy))
  RUN("logb", 0, 0, GF_ANY, GD_ANY, logb_float(x), logbf(x), logb_double(dx), logb(dx))
  RUN("nextafter", 0, 0, GF_ANY, GD_ANY, nextafter_float(x, y), nextafterf(x, y), nextafter_double(dx, dy), nextafter(dx, dy))
  RUN("fdim", 0, 0, GF_ANY, GD_ANY, fdim_float(x, y), fdimf(x, y), fdim_double(dx, dy), fdim(dx, dy))
  RUN("rsqrt", 2, 2, fabsf(GF_ANY), fabs(GD_ANY), rsqrt_float(x), 1.0 / sqrt((double)x), rsqrt_double(dx), 1.0L / sqrtl(dx))
  RUN("erf", 0, 0, GF_SM, GD_SM, erf_float(x), erff(x), erf_double(dx), erf(dx))
  // exact special cases
  for (int k = 0; k < 2000000; k++) {
    float x = rf(), y = rf(); if (k & 1) { x = (float)(int)(rnd() % 2000) / 4 - 250; y = (float)((int)(rnd() % 40) - 20) / 2; }
    int q1, q2; float r1 = remquo_float(x, y, &q1), r2 = remquof(x, y, &q2);
    CHECK(same_f(r1, r2) && (isnan(r1) || (q1 & 7) == (q2 & 7) && ((q1 < 0) == (q2 < 0) || (q1 & 7) == 0) || q2 == 0), "remquo(%a, %a) = %a q %d vs %a q %d", x, y, r1, q1, r2, q2);
    double dx = k & 1 ? (double)x : rdd(), dy = k & 1 ? (double)y : rdd();
    double d1 = remquo_double(dx, dy, &q1), d2 = remquo(dx, dy, &q2);
    CHECK(same_d(d1, d2) && (isnan(d1) || (q1 & 7) == (q2 & 7) && ((q1 < 0) == (q2 < 0) || (q1 & 7) == 0) || q2 == 0), "remquo(%a, %a) = %a q %d vs %a q %d", dx, dy, d1, q1, d2, q2);
    int e1, e2; float m1 = frexp_float(x, &e1), m2 = frexpf(x, &e2); CHECK(same_f(m1, m2) && (e1 == e2 || !isfinite(x)), "frexp %a", x);
    double dm1 = frexp_double(dx, &e1), dm2 = frexp(dx, &e2); CHECK(same_d(dm1, dm2) && (e1 == e2 || !isfinite(dx)), "frexp %a", dx);
    CHECK((isnan(x) ? ilogb_float(x) == INT32_MAX : ilogb_float(x) == ilogbf(x)) && (isnan(dx) ? ilogb_double(dx) == INT32_MAX : ilogb_double(dx) == ilogb(dx)), "ilogb %a %a: %d %d", x, dx, ilogb_float(x), ilogbf(x));
    float ip; float fr = fract_float(x, &ip); CHECK(isnan(x) ? isnan(fr) : (ip == floorf(x) && (isinf(x) ? fr == 0 : fr == fminf(x - floorf(x), 0x1.fffffep-1f))), "fract %a", x);
    float mi; float mf = modf_float(x, &mi); float rmi; float rmf = modff(x, &rmi); CHECK(same_f(mf, rmf) && same_f(mi, rmi), "modf %a", x);
    float mm = maxmag_float(x, y); CHECK(fabsf(x) > fabsf(y) ? mm == x : fabsf(y) > fabsf(x) ? mm == y : same_f(mm, isnan(x) ? y : isnan(y) ? x : fmaxf(x, y)), "maxmag(%a, %a) = %a", x, y, mm);
  }
  float sp[] = {0, -0.0f, 1, -1, 2, -2, 3, 0.5f, -0.5f, 1.5f, -1.5f, 2.5f, INFINITY, -INFINITY, 1e30f, -7.0f};
  for (unsigned k = 0; k < sizeof sp / sizeof *sp; k++) {
    float x = sp[k];
    float s = sinpi_float(x), c = cospi_float(x), t = tanpi_float(x);
    printf("  x=%-5g sinpi %-6g cospi %-6g tanpi %-6g cbrt %-9g exp10 %-6g log1p %-9g expm1 %-9g asinh %g rootn3 %g\n", x, s, c, t, cbrt_float(x), exp10_float(x), log1p_float(x), expm1_float(x), asinh_float(x), rootn_float(x, 3));
  }
  CHECK(sinpi_float(1) == 0 && !signbit(sinpi_float(1)) && signbit(sinpi_float(-1)) && signbit(sinpi_float(-0.0f)) && cospi_float(0.5f) == 0 && !signbit(cospi_float(0.5f)) && cospi_float(1) == -1, "sinpi/cospi exact");
  CHECK(tanpi_float(0.5f) == INFINITY && tanpi_float(1.5f) == -INFINITY && tanpi_float(-0.5f) == -INFINITY && signbit(tanpi_float(1)) && !signbit(tanpi_float(2)) && !signbit(tanpi_float(-1)), "tanpi exact");
  CHECK(cbrt_float(27) == 3 && cbrt_double(27) == 3 && cbrt_float(-8) == -2 && cbrt_double(-0.001) == -0.1 && exp10_float(2) == 100 && exp10_double(2) == 100 && exp10_double(-1) == 0.1 && exp10_double(22) == 1e22, "exact %a %a %a", cbrt_double(-0.001), exp10_double(22), exp10_double(-1));
  CHECK(rootn_float(-8, 3) == -2 && isnan(rootn_float(-8, 2)) && isnan(rootn_float(8, 0)) && rootn_float(-0.0f, -3) == -INFINITY && rootn_float(0, -2) == INFINITY && rootn_double(16, 4) == 2 && rootn_double(-27, 3) == -3, "rootn special");
  CHECK(hypot_float(INFINITY, NAN) == INFINITY && isnan(hypot_float(1, NAN)) && hypot_double(3, 4) == 5 && hypot_double(NAN, -INFINITY) == INFINITY && hypot_double(0, 0) == 0 && hypot_double(1e300, 1e300) == (double)hypotl(1e300, 1e300), "hypot special %a", hypot_double(1e300, 1e300));
  CHECK(isnan(powr_float(-1, 2)) && isnan(powr_float(0, 0)) && isnan(powr_float(INFINITY, 0)) && isnan(powr_float(1, INFINITY)) && powr_float(0, -1) == INFINITY && powr_float(2, 3) == 8 && powr_float(1, 5) == 1, "powr special");
  { int s; float v = lgr_float(-0.5f, &s); CHECK(s == -1 && fabsf(v - lgammaf(-0.5f)) < 1e-6f, "lgamma_r(-0.5)"); lgr_float(-1.5f, &s); CHECK(s == 1, "lgamma_r(-1.5) sign %d", s); lgr_float(3, &s); CHECK(s == 1, "lgamma_r(3)"); lgr_float(-0.0f, &s); CHECK(s == -1, "lgamma_r(-0)"); }
  { float n = nan_float(5); CHECK(isnan(n) && (fb(n) & 0x3fffff) == 5, "nan(5) %08x", fb(n)); }
  CHECK(logb_float(0) == -INFINITY && logb_float(-INFINITY) == INFINITY && ilogb_float(0) == INT32_MIN && ilogb_float(NAN) == INT32_MAX && ilogb_float(INFINITY) == INT32_MAX && ilogb_float(0x1p-149f) == -149 && ilogb_double(0x1p-1074) == -1074, "logb/ilogb special");
  CHECK(ldexp_float(1, 128) == INFINITY && ldexp_float(0x1p-149f, 149) == 1 && ldexp_float(1, -150) == 0 && ldexp_float(0x1.8p0f, -150) == 0x1p-149f && ldexp_double(1, -1075) == 0 && ldexp_double(0x1.8p0, -1075) == 0x1p-1074 && ldexp_float(3, 2000000000) == INFINITY, "ldexp special");
  CHECK(nextafter_float(0, 1) == 0x1p-149f && nextafter_float(-0.0f, -1) == -0x1p-149f && nextafter_float(1, 2) == 0x1.000002p0f && nextafter_float(INFINITY, 0) == 0x1.fffffep127f, "nextafter special");
  CHECK(fract_float(-0.0f, &(float){0}) == 0 && fract_float(-1e-10f, &(float){0}) == 0x1.fffffep-1f, "fract special");
}

void shuf(const float *a, const unsigned *m, float *o, const signed char *c, signed char *co, long *lo, const double *d);
static void shuffles(void) {
  float a[16]; for (int i = 0; i < 16; i++) a[i] = i; unsigned m[12] = {3, 2, 1, 0, 7, 4, 5, 6, 0, 5, 2, 7};
  float o[16] = {0}; signed char c[16], co[16]; for (int i = 0; i < 16; i++) c[i] = i; long lo[16]; double d[4] = {0.25, 1.0, NAN, 1e-310};
  shuf(a, m, o, c, co, lo, d);
  
  float e[14] = {3, 2, 1, 0, 3, 0, 1, 2, 0, 5, 2, 7, 15, 1};
  for (int i = 0; i < 14; i++) CHECK(o[i] == e[i], "shuffle o[%d]=%g want %g", i, o[i], e[i]);
  signed char ce[16] = {115, 0, 100, 1, 101, 2, 102, 3, 103, 4, 104, 5, 105, 6, 106, 115};
  for (int i = 0; i < 16; i++) CHECK(co[i] == ce[i], "shuffle2 char co[%d]=%d want %d", i, co[i], ce[i]);
  long le[16] = {0, -1, -2, 0, 0, 1, 0, 0, 2500000000000000000L, INT64_MAX, 0, 0, 1, 6, 3, 8};
  for (int i = 0; i < 16; i++) CHECK(lo[i] == le[i], "lo[%d]=%ld want %ld", i, lo[i], le[i]);
}

int main(void) {
  conversions(); printf("conversions: %d checks, %d failures\n", checks, fails);
  integers(); printf("+integers: %d checks, %d failures\n", checks, fails);
  halves(); printf("+halves: %d checks, %d failures\n", checks, fails);
  relational(); printf("+relational/common/geometric: %d checks, %d failures\n", checks, fails);
  maths(); printf("+math: %d checks, %d failures\n", checks, fails);
  shuffles(); printf("+shuffle/double relational/select: %d checks, %d failures\n", checks, fails);
  return fails != 0;
}
