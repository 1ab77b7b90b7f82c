//! `volatile`, atomic orderings and scopes, fences, function pointers, indirect calls and
//! calls to variadic functions survive import → lanes IR → export, and the interpreter
//! gives each its meaning (a `printf` writes the program's output).

use crate::common;

use common::{exported, tmp};

use lanes_interp::{Interpreter, Memory, RtValue};
use lanes_ir::write::module_to_string;
use lanes_llvm::clang::ClangOptions;
use lanes_llvm::driver::import_file;

const LL: &str = r#"
@flag = global i32 0
@.fmt = private constant [16 x i8] c"%d %ld %.2f %s\0A\00"
@.word = private constant [3 x i8] c"ok\00"

declare i32 @printf(ptr, ...)

define i32 @twice(i32 %x) {
  %r = shl i32 %x, 1
  ret i32 %r
}

define i32 @every(ptr %p, i32 %v) {
  %a = load volatile i32, ptr %p, align 4
  store volatile i32 %a, ptr %p, align 4
  %b = load atomic i32, ptr %p acquire, align 4
  store atomic i32 %b, ptr %p release, align 4
  %c = load atomic volatile i32, ptr %p syncscope("singlethread") seq_cst, align 4
  store atomic i32 %c, ptr %p monotonic, align 4
  %d = load atomic i32, ptr %p unordered, align 4
  %e = atomicrmw add ptr %p, i32 %v acq_rel, align 4
  %f = atomicrmw volatile xchg ptr %p, i32 %e monotonic, align 4
  %g = cmpxchg ptr %p, i32 %f, i32 %d acq_rel monotonic, align 4
  %h = extractvalue { i32, i1 } %g, 0
  fence acquire
  fence syncscope("singlethread") seq_cst
  %fp = select i1 true, ptr @twice, ptr null
  %i = call i32 %fp(i32 %h)
  %pr = call i32 (ptr, ...) @printf(ptr @.fmt, i32 %i, i64 7, double 2.5, ptr @.word)
  %pp = call i32 (ptr, ...) %p(ptr @.fmt, i32 1)
  %s = add i32 %i, %pr
  ret i32 %s
}
"#;

#[test]
fn every_access_kind_round_trips() {
    let m = import_file(&tmp("every.ll", LL), &ClangOptions::default()).expect("import");
    let text = module_to_string(&m);
    for want in [
        "declare @printf(ptr) -> i32 variadic",
        "i32 = load volatile v",
        "store volatile v",
        "i32 = load acquire v",
        "store release v",
        "i32 = load volatile singlethread seq_cst v",
        "store monotonic v",
        "i32 = load unordered v",
        "atomic_rmw add acq_rel v",
        "atomic_rmw xchg volatile monotonic v",
        "atomic_cas acq_rel monotonic v",
        "fence acquire",
        "fence singlethread seq_cst",
        "ptr = func_addr @twice",
        "i32 = call_indirect v",
        "call @printf(v",
        "call_indirect v0(v",
        ") variadic 1",
    ] {
        assert!(text.contains(want), "lanes IR lacks `{want}`:\n{text}");
    }
    // The text reads back to the same module.
    let again = lanes_ir::parse_module(&text).expect("parses");
    assert_eq!(module_to_string(&again), text);
    let ll = exported(&m);
    for want in [
        "load volatile i32",
        "store volatile i32",
        "load atomic i32, ptr %0 acquire",
        "store atomic i32 %",
        "release, align 4",
        "load atomic volatile i32, ptr %0 syncscope(\"singlethread\") seq_cst",
        "monotonic, align 4",
        "unordered, align 4",
        "atomicrmw add ptr %0, i32 %1 acq_rel",
        "atomicrmw volatile xchg ptr %0",
        "acq_rel monotonic",
        "fence acquire",
        "fence syncscope(\"singlethread\") seq_cst",
        "call i32 (ptr, ...) @printf(ptr @.fmt",
        "call i32 (ptr, ...) %0(ptr @.fmt, i32 1)",
        "@twice",
    ] {
        assert!(ll.contains(want), "exported LLVM lacks `{want}`:\n{ll}");
    }
}

/// C as users write it: a volatile flag polled in a loop stays a loop of volatile loads
/// (it used to become `ret void`), C11 atomics keep their orderings, `printf` and a
/// function pointer call run in the interpreter.
#[test]
fn c_volatile_atomics_and_printf_keep_their_meaning() {
    let c = r#"
#include <stdatomic.h>
#include <stdio.h>
volatile int ready;
_Atomic long counter;
void wait_ready(void) { while (!ready) {} }
long bump(long k) {
  atomic_fetch_add_explicit(&counter, k, memory_order_release);
  atomic_thread_fence(memory_order_seq_cst);
  return atomic_load_explicit(&counter, memory_order_acquire);
}
static int sq(int x) { return x * x; }
int (*pick(int k))(int) { return k ? sq : 0; }
int run(int x) {
  int (*f)(int) = pick(x);
  int r = f ? f(x) : -1;
  printf("r=%d k=%ld\n", r, bump(2));
  return r;
}
"#;
    let m = import_file(&tmp("mm.c", c), &ClangOptions::default()).expect("import");
    let text = module_to_string(&m);
    let wait = text
        .split("function @wait_ready")
        .nth(1)
        .expect("wait_ready is imported");
    assert!(
        wait.contains("load volatile v") && wait.contains("brif"),
        "{wait}"
    );
    assert!(text.contains("atomic_rmw add release v"), "{text}");
    assert!(text.contains("fence seq_cst"), "{text}");
    assert!(text.contains("i64 = load acquire v"), "{text}");
    assert!(text.contains("call @printf(v"), "{text}");
    let ll = exported(&m);
    assert!(ll.contains("load volatile i32"), "{ll}");
    assert!(
        ll.contains("atomicrmw add ptr") && ll.contains("release"),
        "{ll}"
    );

    let interp = Interpreter::new(&m);
    let mut mem = Memory::new();
    let r = interp
        .call_by_name("run", &[RtValue::i32(7)], &mut mem)
        .expect("runs");
    assert_eq!(r, Some(RtValue::i32(49)));
    assert_eq!(String::from_utf8(mem.take_stdout()).unwrap(), "r=49 k=2\n");
    // A call through a null function pointer is an error, not a crash.
    let r = interp.call_by_name("run", &[RtValue::i32(0)], &mut mem);
    assert_eq!(r.expect("runs"), Some(RtValue::i32(-1)));
}

#[test]
fn calling_a_data_pointer_is_an_error() {
    let ll = "define i32 @f(ptr %p) {\n  %r = call i32 %p(i32 1)\n  ret i32 %r\n}\n";
    let m = import_file(&tmp("bad.ll", ll), &ClangOptions::default()).expect("import");
    let interp = Interpreter::new(&m);
    let mut mem = Memory::new();
    let buf = mem
        .alloc(16, 4, lanes_ir::AddrSpace::PRIVATE)
        .expect("alloc");
    let p = RtValue::from_bits(lanes_ir::ScalarType::Ptr(lanes_ir::AddrSpace::PRIVATE), buf);
    let err = interp
        .call_by_name("f", &[p], &mut mem)
        .expect_err("not a function");
    assert!(
        err.to_string().contains("not the address of a function"),
        "{err}"
    );
}
