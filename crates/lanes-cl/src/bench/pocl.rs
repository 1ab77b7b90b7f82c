//! pocl, the peer of `lanes bench cl`: the same kernel source, sizes and inputs through the
//! standard OpenCL API (the `opencl3` crate, with the ICD loader opened at run time, so
//! that lanes builds and runs where no OpenCL is installed and the benchmark says so).
//!
//! pocl runs one thread per core unless `POCL_MAX_PTHREAD_COUNT` says otherwise, and
//! leaves its threads unbound unless `POCL_AFFINITY=1`; the benchmark sets both, before
//! the platform is first opened, to what lanes does, so both systems use the same number
//! of threads, bound to CPUs alike ([`crate::thread_pool`] says why binding matters).

use std::ffi::c_void;
use std::time::{Duration, Instant};

use opencl3::command_queue::CommandQueue;
use opencl3::context::Context;
use opencl3::device::{Device, CL_DEVICE_TYPE_CPU};
use opencl3::kernel::Kernel;
use opencl3::memory::{Buffer, ClMem, CL_MEM_COPY_HOST_PTR, CL_MEM_READ_WRITE};
use opencl3::platform::get_platforms;
use opencl3::program::Program;
use opencl3::types::CL_BLOCKING;

use crate::arg_spec::HostArg;
use crate::NdRange;

/// An OpenCL CPU device of the pocl platform, with a queue.
pub struct Pocl {
    context: Context,
    queue: CommandQueue,
    /// The device's name (`pthread-haswell-AMD EPYC …`).
    pub device: String,
}

/// Each buffer argument's contents after a run (`None` for the other arguments).
pub type Outputs = Vec<Option<Vec<u8>>>;

/// A kernel built by pocl.
pub struct PoclKernel {
    kernel: Kernel,
    _program: Program,
}

impl Pocl {
    /// The first CPU device of a platform named "Portable Computing Language", running
    /// `threads` threads, bound to CPUs if `bound`; why none is available otherwise (the
    /// message names the Debian package to install). A setting already in the environment
    /// is kept.
    pub fn open(threads: usize, bound: bool) -> Result<Pocl, String> {
        for (name, value) in [
            ("POCL_MAX_PTHREAD_COUNT", threads.to_string()),
            ("POCL_AFFINITY", u8::from(bound).to_string()),
        ] {
            if std::env::var_os(name).is_none() {
                std::env::set_var(name, value);
            }
        }
        let missing = "install Debian's pocl-opencl-icd (and ocl-icd-libopencl1)";
        let platforms =
            get_platforms().map_err(|e| format!("no OpenCL platform ({e}): {missing}"))?;
        let platform = platforms
            .iter()
            .find(|p| {
                p.name()
                    .is_ok_and(|n| n.contains("Portable Computing Language"))
            })
            .ok_or_else(|| format!("no pocl platform among the OpenCL platforms: {missing}"))?;
        let id = *platform
            .get_devices(CL_DEVICE_TYPE_CPU)
            .map_err(|e| format!("pocl has no CPU device: {e}"))?
            .first()
            .ok_or("pocl has no CPU device")?;
        let device = Device::new(id);
        let name = device.name().unwrap_or_else(|_| "pocl CPU".into());
        let context = Context::from_device(&device).map_err(|e| format!("pocl context: {e}"))?;
        #[allow(deprecated)]
        let queue =
            CommandQueue::create_default(&context, 0).map_err(|e| format!("pocl queue: {e}"))?;
        Ok(Pocl {
            context,
            queue,
            device: name,
        })
    }

    /// Builds `source` and returns its kernel `name`.
    pub fn build(&self, source: &str, options: &str, name: &str) -> Result<PoclKernel, String> {
        let program = Program::create_and_build_from_source(&self.context, source, options)
            .map_err(|log| format!("pocl did not build the program: {log}"))?;
        let kernel =
            Kernel::create(&program, name).map_err(|e| format!("pocl kernel {name}: {e}"))?;
        Ok(PoclKernel {
            kernel,
            _program: program,
        })
    }

    /// Runs `kernel` once on fresh copies of `args`; the time from enqueue to finish, and
    /// each buffer argument's contents afterwards (`None` for the others).
    pub fn run(
        &self,
        kernel: &PoclKernel,
        args: &[HostArg],
        range: &NdRange,
    ) -> Result<(Duration, Outputs), String> {
        let cl = |e: opencl3::error_codes::ClError| format!("pocl: {e}");
        let mut buffers: Vec<Option<Buffer<u8>>> = Vec::new();
        for (i, arg) in args.iter().enumerate() {
            let index = i as u32;
            match arg {
                HostArg::Buffer { buffer, .. } => {
                    let mut bytes = buffer.bytes();
                    let len = bytes.len().max(1);
                    bytes.resize(len, 0);
                    // SAFETY: `bytes` holds `len` bytes, copied by the call.
                    let b = unsafe {
                        Buffer::<u8>::create(
                            &self.context,
                            CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                            len,
                            bytes.as_mut_ptr().cast::<c_void>(),
                        )
                    }
                    .map_err(cl)?;
                    // SAFETY: the argument is a buffer of the kernel's.
                    unsafe { kernel.kernel.set_arg(index, &b.get()) }.map_err(cl)?;
                    buffers.push(Some(b));
                }
                HostArg::Scalar(bytes) => {
                    // SAFETY: `bytes` is the value of the parameter's size (checked by
                    // the caller against the kernel's signature).
                    unsafe {
                        opencl3::kernel::set_kernel_arg(
                            kernel.kernel.get(),
                            index,
                            bytes.len(),
                            bytes.as_ptr().cast(),
                        )
                    }
                    .map_err(|e| cl(e.into()))?;
                    buffers.push(None);
                }
                HostArg::Local(n) => {
                    // SAFETY: a `__local` parameter.
                    unsafe { kernel.kernel.set_arg_local_buffer(index, *n) }.map_err(cl)?;
                    buffers.push(None);
                }
            }
        }
        let dims = range.global.len() as u32;
        let global: Vec<usize> = range.global.iter().map(|&g| g as usize).collect();
        let local: Option<Vec<usize>> = range
            .local
            .as_ref()
            .map(|l| l.iter().map(|&x| x as usize).collect());
        let start = Instant::now();
        // SAFETY: the sizes have `dims` entries; the arguments are set.
        unsafe {
            self.queue.enqueue_nd_range_kernel(
                kernel.kernel.get(),
                dims,
                std::ptr::null(),
                global.as_ptr(),
                local.as_ref().map_or(std::ptr::null(), |l| l.as_ptr()),
                &[],
            )
        }
        .map_err(cl)?;
        self.queue.finish().map_err(cl)?;
        let time = start.elapsed();
        let mut outputs = Vec::with_capacity(buffers.len());
        for (b, arg) in buffers.iter().zip(args) {
            outputs.push(match (b, arg) {
                (Some(b), HostArg::Buffer { buffer, .. }) => {
                    let mut out = vec![0u8; buffer.len().max(1)];
                    // SAFETY: `out` has the buffer's size; the read blocks.
                    unsafe {
                        self.queue
                            .enqueue_read_buffer(b, CL_BLOCKING, 0, &mut out, &[])
                    }
                    .map_err(cl)?;
                    out.truncate(buffer.len());
                    Some(out)
                }
                _ => None,
            });
        }
        Ok((time, outputs))
    }
}
