//! The Rust host API, after OpenCL's: a [`Context`] (threads), a [`Program`] built from
//! OpenCL C source, its [`Kernel`]s, [`Buffer`]s and [`Arg`]s, and
//! [`Kernel::enqueue`] over an [`NdRange`] (blocking, like `clEnqueueNDRangeKernel`
//! followed by `clFinish`).
//!
//! ```no_run
//! use lanes_cl::{Arg, Buffer, Context, NdRange};
//! let ctx = Context::new().unwrap();
//! let program = ctx.build_source(
//!     "__kernel void twice(__global float *x) { size_t i = get_global_id(0); x[i] *= 2.0f; }",
//!     &Default::default(),
//! ).unwrap();
//! let x = Buffer::from_slice(&[1.0f32, 2.0, 3.0]);
//! program.kernel("twice").unwrap().enqueue(&[Arg::Buffer(&x)], &NdRange::linear(3)).unwrap();
//! assert_eq!(x.to_vec::<f32>(), vec![2.0, 4.0, 6.0]);
//! ```
//!
//! A program holds JIT-compiled code in an LLVM context, which stays on the thread that
//! built it; its kernels run on the context's thread pool.

use std::cell::{OnceCell, RefCell, UnsafeCell};
use std::collections::HashMap;
use std::mem::ManuallyDrop;
use std::path::Path;
use std::rc::Rc;
use std::time::{Duration, Instant};

use lanes_llvm::jit::Jit;
use lanes_llvm::opencl::ArgSpace;
use lanes_llvm::pipeline::PipelineOptions;

use crate::aligned::{AlignedBytes, BUFFER_ALIGN};
use crate::compile::{compile_program, BuildOptions, CompiledProgram, KernelInfo};
use crate::error::ClError;
use crate::executor::{run, Launch, PhaseFn};
use crate::group_context::GroupContext;
use crate::thread_pool::{self, Affinity};

/// Where kernels run: a pool of threads (one per core by default).
#[derive(Clone)]
pub struct Context {
    pub threads: usize,
    pool: std::sync::Arc<rayon::ThreadPool>,
}

impl Context {
    /// One thread per core.
    pub fn new() -> Result<Context, ClError> {
        Context::with_threads(std::thread::available_parallelism().map_or(1, |n| n.get()))
    }

    /// `threads` threads (at least one), bound to CPUs as [`Affinity::Auto`] says; an
    /// error if the system cannot start them.
    pub fn with_threads(threads: usize) -> Result<Context, ClError> {
        Context::with_affinity(threads, Affinity::Auto)
    }

    /// `threads` threads (at least one), bound to CPUs as `affinity` says.
    pub fn with_affinity(threads: usize, affinity: Affinity) -> Result<Context, ClError> {
        let threads = threads.max(1);
        Ok(Context {
            threads,
            pool: std::sync::Arc::new(thread_pool::build(threads, affinity)?),
        })
    }

    /// Builds the OpenCL C program in file `path`.
    pub fn build_file(&self, path: &Path, opts: &BuildOptions) -> Result<Program, ClError> {
        Program::new(self.clone(), compile_program(path, opts)?)
    }

    /// Builds OpenCL C `source` (written to a scratch file for clang).
    pub fn build_source(&self, source: &str, opts: &BuildOptions) -> Result<Program, ClError> {
        static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!("lanes-cl-{}-{n}.cl", std::process::id()));
        std::fs::write(&path, source).map_err(|e| ClError::Io {
            path: path.clone(),
            message: e.to_string(),
        })?;
        let built = self.build_file(&path, opts);
        let _ = std::fs::remove_file(&path);
        built
    }
}

/// A global buffer: bytes the kernels read and write, starting on a 128-byte boundary
/// ([`crate::aligned`]).
pub struct Buffer {
    bytes: UnsafeCell<AlignedBytes>,
    len: usize,
}

/// Element types a buffer can be filled from and read as.
pub trait Element: Copy + Default + 'static {}
macro_rules! elements { ($($t:ty),*) => { $(impl Element for $t {})* } }
elements!(i8, u8, i16, u16, i32, u32, i64, u64, f32, f64);

impl Buffer {
    /// `bytes` zero bytes (their pages already faulted in: [`AlignedBytes::new`]).
    pub fn zeroed(bytes: usize) -> Buffer {
        Buffer {
            bytes: UnsafeCell::new(AlignedBytes::new(bytes, BUFFER_ALIGN)),
            len: bytes,
        }
    }

    /// The elements of `data`.
    pub fn from_slice<T: Element>(data: &[T]) -> Buffer {
        let bytes = std::mem::size_of_val(data);
        let b = Buffer::zeroed(bytes);
        // SAFETY: `Element` types are plain data; the buffer holds `bytes` bytes.
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr().cast::<u8>(), b.ptr(), bytes) };
        b
    }

    /// Its size in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn ptr(&self) -> *mut u8 {
        // SAFETY: the vector is never resized; kernels write through this pointer only
        // while `enqueue` borrows the buffer.
        unsafe { (*self.bytes.get()).as_mut_ptr() }
    }

    /// Overwrites its first `bytes.len()` bytes.
    pub(crate) fn write_bytes(&self, bytes: &[u8]) {
        let n = bytes.len().min(self.len);
        // SAFETY: `n` bytes fit; no kernel runs while `self` is borrowed here.
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), self.ptr(), n) };
    }

    /// Its bytes.
    pub fn bytes(&self) -> Vec<u8> {
        // SAFETY: `len` bytes are allocated; no kernel runs while `self` is borrowed here.
        unsafe { std::slice::from_raw_parts(self.ptr(), self.len).to_vec() }
    }

    /// Its contents as elements of `T` (a trailing partial element is dropped).
    pub fn to_vec<T: Element>(&self) -> Vec<T> {
        let n = self.len / std::mem::size_of::<T>();
        let mut out = vec![T::default(); n];
        // SAFETY: `n` whole elements fit in the buffer; `T` is plain data.
        unsafe {
            std::ptr::copy_nonoverlapping(
                self.ptr(),
                out.as_mut_ptr().cast::<u8>(),
                n * std::mem::size_of::<T>(),
            )
        };
        out
    }
}

/// A kernel argument.
pub enum Arg<'a> {
    /// A `__global` or `__constant` pointer.
    Buffer(&'a Buffer),
    /// A value (`int n`, `float a`), as little-endian bytes of its type.
    Scalar(Vec<u8>),
    /// A `__local` pointer to this many bytes, one allocation per work-group.
    Local(usize),
}

impl Arg<'_> {
    pub fn i32(x: i32) -> Arg<'static> {
        Arg::Scalar(x.to_le_bytes().to_vec())
    }
    pub fn u32(x: u32) -> Arg<'static> {
        Arg::Scalar(x.to_le_bytes().to_vec())
    }
    pub fn i64(x: i64) -> Arg<'static> {
        Arg::Scalar(x.to_le_bytes().to_vec())
    }
    pub fn f32(x: f32) -> Arg<'static> {
        Arg::Scalar(x.to_le_bytes().to_vec())
    }
    pub fn f64(x: f64) -> Arg<'static> {
        Arg::Scalar(x.to_le_bytes().to_vec())
    }
}

/// The index space of a launch: global sizes (1–3 dimensions), optional local sizes
/// (lanes picks them when absent) and global offset.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NdRange {
    pub global: Vec<u64>,
    pub local: Option<Vec<u64>>,
    pub offset: Option<Vec<u64>>,
}

impl NdRange {
    /// `n` work-items in one dimension, local size chosen by lanes.
    pub fn linear(n: u64) -> NdRange {
        NdRange {
            global: vec![n],
            ..NdRange::default()
        }
    }

    /// `global` work-items in groups of `local`.
    pub fn new(global: &[u64], local: &[u64]) -> NdRange {
        NdRange {
            global: global.to_vec(),
            local: Some(local.to_vec()),
            offset: None,
        }
    }
}

/// JIT-compiled code and the LLVM context it lives in (dropped in that order).
struct Native {
    jit: ManuallyDrop<Jit<'static>>,
    _llvm: Box<lanes_llvm::Context>,
}

impl Drop for Native {
    fn drop(&mut self) {
        // SAFETY: the JIT borrows `_llvm`, which is dropped after this.
        unsafe { ManuallyDrop::drop(&mut self.jit) };
    }
}

impl Native {
    /// JIT-compiles `module` for the host CPU.
    fn compile(module: &lanes_ir::Module) -> Result<Native, ClError> {
        let llvm = Box::new(lanes_llvm::Context::create());
        // SAFETY: the box's contents never move, and `Native` drops the JIT first.
        let llvm_ref: &'static lanes_llvm::Context = unsafe { &*(llvm.as_ref() as *const _) };
        let opts = PipelineOptions {
            opt_level: 3,
            loop_vectorize: false,
            slp_vectorize: false,
            verify_each: false,
        };
        let jit = Jit::new(llvm_ref, module, &opts)?;
        Ok(Native {
            jit: ManuallyDrop::new(jit),
            _llvm: llvm,
        })
    }

    /// The group functions `names` as callable code.
    fn phases(&self, names: &[String]) -> Result<Vec<PhaseFn>, ClError> {
        names
            .iter()
            .map(|r| {
                let addr = self.jit.address(r)?;
                // SAFETY: group functions have exactly `PhaseFn`'s signature (`crate::work_item_loops`).
                Ok(unsafe { std::mem::transmute::<usize, PhaseFn>(addr) })
            })
            .collect()
    }
}

/// A kernel's code specialized for one local size.
struct Specialized {
    _native: Native,
    phases: Vec<PhaseFn>,
    info: KernelInfo,
}

/// A built program.
pub struct Program {
    context: Context,
    compiled: CompiledProgram,
    /// The generic code, compiled on first use: with specialization on, launches never
    /// run it.
    generic: OnceCell<Native>,
    /// Kernels compiled again for the local sizes of their launches, by kernel and size.
    specialized: RefCell<HashMap<SpecializationKey, Rc<Specialized>>>,
}

/// A kernel's name and a local size.
type SpecializationKey = (String, [u64; 3]);

impl Program {
    fn new(context: Context, compiled: CompiledProgram) -> Result<Program, ClError> {
        Ok(Program {
            context,
            compiled,
            generic: OnceCell::new(),
            specialized: RefCell::default(),
        })
    }

    /// The group functions of kernel `info` in the generic code.
    fn generic_phases(&self, info: &KernelInfo) -> Result<Vec<PhaseFn>, ClError> {
        if self.generic.get().is_none() {
            let native = Native::compile(&self.compiled.module)?;
            let _ = self.generic.set(native);
        }
        let native = self
            .generic
            .get()
            .ok_or_else(|| ClError::Internal("no generic code".into()))?;
        native.phases(&info.phases)
    }

    /// Kernel `info` specialized for local size `local`, compiled on first use.
    fn specialized(&self, info: &KernelInfo, local: [u64; 3]) -> Result<Rc<Specialized>, ClError> {
        let key = (info.signature.name.clone(), local);
        if let Some(s) = self.specialized.borrow().get(&key) {
            return Ok(s.clone());
        }
        let (module, info) = self.compiled.specialize(info, local)?;
        let native = Native::compile(&module)?;
        let phases = native.phases(&info.phases)?;
        let s = Rc::new(Specialized {
            _native: native,
            phases,
            info,
        });
        self.specialized.borrow_mut().insert(key, s.clone());
        Ok(s)
    }

    /// The kernels' names, in source order.
    pub fn kernel_names(&self) -> Vec<&str> {
        self.compiled
            .kernels
            .iter()
            .map(|k| k.signature.name.as_str())
            .collect()
    }

    /// Work-items per vector in this program's code.
    pub fn width(&self) -> u16 {
        self.compiled.width
    }

    /// The kernel `name`.
    pub fn kernel(&self, name: &str) -> Result<Kernel<'_>, ClError> {
        let info = self
            .compiled
            .kernels
            .iter()
            .find(|k| k.signature.name == name)
            .ok_or_else(|| ClError::UnknownKernel {
                name: name.to_string(),
                available: self.kernel_names().join(", "),
            })?;
        Ok(Kernel {
            program: self,
            info,
        })
    }
}

/// Each argument's 8-byte slot, and the `(slot, bytes)` of the `__local` ones.
type ArgumentSlots = (Vec<u64>, Vec<(usize, u64)>);

/// A kernel of a program, ready to launch.
pub struct Kernel<'p> {
    program: &'p Program,
    info: &'p KernelInfo,
}

impl Kernel<'_> {
    /// What the kernel takes, as written.
    pub fn info(&self) -> &KernelInfo {
        self.info
    }

    /// Runs the kernel over `range` with `args`; returns the wall time of the launch. The
    /// first launch at a local size compiles the kernel for it (unless the program was
    /// built without [`BuildOptions::specialize_local_size`]); the time is the launch's.
    pub fn enqueue(&self, args: &[Arg<'_>], range: &NdRange) -> Result<Duration, ClError> {
        let name = &self.info.signature.name;
        let (slots, local_args) = self.argument_slots(args)?;
        let context = crate::range::group_context(name, range, self.program.width())?;
        let (specialized, generic);
        let (phases, info) = if self.program.compiled.options.specialize_local_size {
            specialized = self.program.specialized(self.info, context.local_size)?;
            (&specialized.phases[..], &specialized.info)
        } else {
            generic = self.program.generic_phases(self.info)?;
            (&generic[..], self.info)
        };
        let launch = Launch {
            kernel: name,
            phases,
            args: slots,
            local_args,
            local_vars: info.local.size,
            bytes_per_item: info.bytes_per_item,
            barrier_lines: &info.barrier_lines,
            context,
            pool: &self.program.context.pool,
        };
        let start = Instant::now();
        run(&launch)?;
        Ok(start.elapsed())
    }

    /// Runs the kernel like [`Kernel::enqueue`], but on lanes' reference interpreter, one
    /// group after another, with every memory access checked ([`crate::checked`]).
    pub fn enqueue_checked(&self, args: &[Arg<'_>], range: &NdRange) -> Result<(), ClError> {
        self.argument_slots(args)?;
        let p = &self.program.compiled;
        crate::checked::run_checked(&p.module, &p.file, self.info, args, range, p.width)
    }

    /// The 8-byte slot of each argument, and the `__local` ones' sizes.
    fn argument_slots(&self, args: &[Arg<'_>]) -> Result<ArgumentSlots, ClError> {
        let sig = &self.info.signature;
        if args.len() != sig.args.len() {
            return Err(ClError::ArgumentCount {
                kernel: sig.name.clone(),
                expected: sig.args.len(),
                given: args.len(),
            });
        }
        let mut slots = Vec::with_capacity(args.len());
        let mut locals = Vec::new();
        for (i, (arg, decl)) in args.iter().zip(&sig.args).enumerate() {
            let bad = |message: String| ClError::Argument {
                kernel: sig.name.clone(),
                index: i,
                name: decl.name.clone(),
                message,
            };
            let written = format!("`{}`", decl.type_name);
            let slot = match (arg, decl.space) {
                (Arg::Buffer(b), ArgSpace::Global | ArgSpace::Constant) => b.ptr() as u64,
                (Arg::Local(bytes), ArgSpace::Local) => {
                    locals.push((i, *bytes as u64));
                    0
                }
                (Arg::Scalar(bytes), ArgSpace::Private) => {
                    let want = self.info.param_types[i].bytes() as usize;
                    if bytes.len() != want {
                        return Err(bad(format!(
                            "{written} takes {want} bytes, the value given has {}",
                            bytes.len()
                        )));
                    }
                    let mut word = [0u8; 8];
                    word[..want].copy_from_slice(bytes);
                    u64::from_le_bytes(word)
                }
                (Arg::Buffer(_), _) => return Err(bad(format!("{written} is not a buffer"))),
                (Arg::Local(_), _) => {
                    return Err(bad(format!("{written} is not a __local pointer")))
                }
                (Arg::Scalar(_), _) => {
                    return Err(bad(format!("{written} is a pointer, not a value")))
                }
            };
            slots.push(slot);
        }
        Ok((slots, locals))
    }
}

/// The context of a launch's first group (used by tests of the range rules).
pub fn first_group(kernel: &str, range: &NdRange, width: u16) -> Result<GroupContext, ClError> {
    crate::range::group_context(kernel, range, width)
}
