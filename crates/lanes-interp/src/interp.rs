//! The scalar driver: runs a function of a module on arguments and memory.
//!
//! This is the reference semantics every transformation is tested against (ARCHITECTURE.md,
//! "Testing"). It executes instructions in layout order within a block, follows branches,
//! and keeps an explicit stack of activations (so recursion in the program is bounded by
//! [`Interpreter::max_depth`], not by the host stack). A vectorized function is run by the
//! same driver: its vector instructions are lane-wise values like any other.
//!
//! φ-nodes are evaluated *in parallel* on entry to a block: the incoming values for the
//! edge taken are all read before any φ result is written, which is the standard
//! semantics (a φ reading another φ of the same block sees the value from the
//! predecessor; the "swap problem"). Each executed instruction, φs included, costs one
//! unit of fuel; exhausting the budget is an error, so generated programs with infinite
//! loops terminate. Stack slots of an activation are freed when it returns, making later
//! accesses through escaped pointers `dangling` errors. Every error carries the function,
//! block and printed instruction, plus the chain of calls that led there.

use lanes_ir::{Block, EntityRef, FuncEntry, FuncId, Function, Inst, InstData, Module};

use crate::arith::malformed;
use crate::context::{ExecContext, WorkItemContext};
use crate::error::{ErrorKind, InterpError, Location};
use crate::eval::{eval_inst, signature_mismatch, Effect, EvalCtx, Operands};
use crate::externals;
use crate::memory::Memory;
use crate::value::RtValue;

/// The default instruction budget of one call.
pub const DEFAULT_FUEL: u64 = 50_000_000;
/// The default limit on nested activations.
pub const DEFAULT_MAX_DEPTH: usize = 1_000;
/// The most value slots all live activations may hold together (each activation holds
/// one per value of its function), so that deep recursion of a huge function is a
/// `stack overflow` error rather than an exhausted host.
pub const MAX_FRAME_SLOTS: usize = 1 << 22;

/// Counters of one run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RunStats {
    /// Instructions executed (φs included).
    pub insts: u64,
    /// Calls of defined functions, the outermost included.
    pub calls: u64,
    /// The deepest activation stack reached.
    pub max_depth: usize,
}

/// An interpreter for the functions of one module.
#[derive(Clone, Debug)]
pub struct Interpreter<'m> {
    module: &'m Module,
    fuel: u64,
    max_depth: usize,
    exec: ExecContext,
}

/// One activation.
struct Frame<'m> {
    func: &'m Function,
    values: Vec<Option<RtValue>>,
    block: Block,
    pos: usize,
    allocas: Vec<u64>,
}

impl Frame<'_> {
    fn current_inst(&self) -> Option<Inst> {
        self.func
            .layout
            .block_insts(self.block)
            .get(self.pos)
            .copied()
    }
}

impl<'m> Interpreter<'m> {
    pub fn new(module: &'m Module) -> Self {
        Interpreter {
            module,
            fuel: DEFAULT_FUEL,
            max_depth: DEFAULT_MAX_DEPTH,
            exec: ExecContext::default(),
        }
    }

    /// Sets the instruction budget of each call.
    pub fn fuel(mut self, n: u64) -> Self {
        self.fuel = n;
        self
    }

    /// Sets the limit on nested activations.
    pub fn max_depth(mut self, n: usize) -> Self {
        self.max_depth = n;
        self
    }

    /// Sets what the program observes about itself (work-item ids, lane).
    pub fn exec_context(mut self, exec: ExecContext) -> Self {
        self.exec = exec;
        self
    }

    /// Sets the work-item ids and sizes.
    pub fn work_item(mut self, work_item: WorkItemContext) -> Self {
        self.exec.work_item = work_item;
        self
    }

    pub fn exec(&self) -> &ExecContext {
        &self.exec
    }

    pub fn exec_mut(&mut self) -> &mut ExecContext {
        &mut self.exec
    }

    pub fn module(&self) -> &'m Module {
        self.module
    }

    /// Places the module's globals in `mem` (done by every call if not yet done).
    pub fn init_globals(&self, mem: &mut Memory) -> Result<(), InterpError> {
        mem.init_globals(self.module)
            .map_err(|e| InterpError::bare(e.into()))
    }

    /// The address of global `name` in `mem`, once placed.
    pub fn global_ptr(&self, mem: &Memory, name: &str) -> Option<u64> {
        mem.global_ptr(self.module.global_by_name(name)?.index())
    }

    /// Calls `func` with `args`; its result, if it returns one.
    pub fn call(
        &self,
        func: FuncId,
        args: &[RtValue],
        mem: &mut Memory,
    ) -> Result<Option<RtValue>, InterpError> {
        self.call_with_stats(func, args, mem).0
    }

    /// Calls the function named `name`.
    pub fn call_by_name(
        &self,
        name: &str,
        args: &[RtValue],
        mem: &mut Memory,
    ) -> Result<Option<RtValue>, InterpError> {
        let func = self
            .module
            .func_by_name(name)
            .ok_or_else(|| InterpError::bare(ErrorKind::NoSuchFunction(name.to_string())))?;
        self.call(func, args, mem)
    }

    /// Calls `func` and also reports counters of the run.
    pub fn call_with_stats(
        &self,
        func: FuncId,
        args: &[RtValue],
        mem: &mut Memory,
    ) -> (Result<Option<RtValue>, InterpError>, RunStats) {
        let mut stats = RunStats::default();
        let result = self.start(func, args, mem, &mut stats);
        (result, stats)
    }

    fn start(
        &self,
        func: FuncId,
        args: &[RtValue],
        mem: &mut Memory,
        stats: &mut RunStats,
    ) -> Result<Option<RtValue>, InterpError> {
        let bare = |k: ErrorKind| InterpError::bare(k);
        let entry = self
            .module
            .funcs
            .get(func)
            .ok_or_else(|| bare(ErrorKind::NoSuchFunction(func.to_string())))?;
        if let Some(msg) = signature_mismatch(&entry.signature(), args) {
            return Err(bare(ErrorKind::BadArgument(format!(
                "@{}: {msg}",
                entry.name()
            ))));
        }
        if args.iter().any(|a| a.lane_count() == 0) {
            let msg = "a vector argument without lanes".to_string();
            return Err(bare(ErrorKind::BadArgument(msg)));
        }
        self.init_globals(mem)?;
        match entry {
            FuncEntry::Declared(d) if crate::stdio::is_stdio(&d.name) => {
                crate::stdio::call_stdio(mem, &d.name, args, d.sig.ret).map_err(bare)
            }
            FuncEntry::Declared(d) => externals::call_external(&d.name, &d.sig, args).map_err(bare),
            FuncEntry::Defined(f) => {
                let frame = self
                    .new_frame(f, args.to_vec())
                    .map_err(|k| self.error_in(f, None, k))?;
                self.run(vec![frame], mem, stats)
            }
        }
    }

    fn new_frame(&self, func: &'m Function, args: Vec<RtValue>) -> Result<Frame<'m>, ErrorKind> {
        let entry = func
            .entry_block()
            .ok_or_else(|| malformed("function has no blocks"))?;
        let mut values = vec![None; func.dfg.num_values()];
        for (param, arg) in func.params.iter().zip(args) {
            let slot = values.get_mut(param.value.index());
            *slot.ok_or_else(|| malformed(format!("bad parameter value {}", param.value)))? =
                Some(arg);
        }
        if func
            .layout
            .first_inst(entry)
            .is_some_and(|i| func.dfg.inst(i).is_phi())
        {
            return Err(malformed("φ in the entry block"));
        }
        Ok(Frame {
            func,
            values,
            block: entry,
            pos: 0,
            allocas: Vec::new(),
        })
    }

    /// An error at `inst` (or at the function level) of `func`.
    fn error_in(&self, func: &Function, at: Option<(Block, Inst)>, kind: ErrorKind) -> InterpError {
        InterpError {
            kind,
            location: Some(self.location(func, at)),
            callers: Vec::new(),
        }
    }

    fn location(&self, func: &Function, at: Option<(Block, Inst)>) -> Location {
        Location {
            func: func.name.clone(),
            block: at.map(|(b, _)| b),
            inst: at.map(|(_, i)| i),
            text: at.map_or_else(String::new, |(_, i)| {
                lanes_ir::write::inst_to_string(self.module, func, i)
            }),
        }
    }

    /// An error in the innermost frame, with the call sites of the outer frames.
    fn error_at(&self, stack: &[Frame<'m>], inst: Option<Inst>, kind: ErrorKind) -> InterpError {
        let Some(top) = stack.last() else {
            return InterpError::bare(kind);
        };
        let mut e = self.error_in(top.func, inst.map(|i| (top.block, i)), kind);
        for f in stack[..stack.len() - 1].iter().rev() {
            e.callers
                .push(self.location(f.func, f.current_inst().map(|i| (f.block, i))));
        }
        e
    }

    fn charge(&self, stats: &mut RunStats, n: u64) -> Result<(), ErrorKind> {
        stats.insts = stats.insts.saturating_add(n);
        if stats.insts > self.fuel {
            return Err(ErrorKind::OutOfFuel(self.fuel));
        }
        Ok(())
    }

    /// The driver loop over an activation stack.
    fn run(
        &self,
        mut stack: Vec<Frame<'m>>,
        mem: &mut Memory,
        stats: &mut RunStats,
    ) -> Result<Option<RtValue>, InterpError> {
        stats.calls += 1;
        stats.max_depth = stats.max_depth.max(stack.len());
        // Value slots held by all live activations (bounded by MAX_FRAME_SLOTS).
        let mut slots: usize = stack.iter().map(|f| f.values.len()).sum();
        loop {
            let Some(frame) = stack.last_mut() else {
                return Ok(None);
            };
            let Some(inst) = frame.current_inst() else {
                let kind = malformed("control reaches the end of a block without a terminator");
                return Err(self.error_at(&stack, None, kind));
            };
            if let Err(kind) = self.charge(stats, 1) {
                return Err(self.error_at(&stack, Some(inst), kind));
            }
            let func = frame.func;
            let allocas = &mut frame.allocas;
            let mut cx = EvalCtx {
                module: self.module,
                exec: &self.exec,
                mem,
                allocas,
                lane: None,
            };
            let effect = match eval_inst(&mut cx, func, inst, &frame.values) {
                Ok(e) => e,
                Err(kind) => return Err(self.error_at(&stack, Some(inst), kind)),
            };
            match effect {
                Effect::Next(result) => {
                    if let (Some(r), Some(v)) = (result, func.dfg.inst_result(inst)) {
                        if let Some(slot) = frame.values.get_mut(v.index()) {
                            *slot = Some(r);
                        }
                    }
                    frame.pos += 1;
                }
                Effect::Jump(dest) => {
                    if let Err((at, kind)) = self.enter_block(frame, inst, dest, stats) {
                        return Err(self.error_at(&stack, Some(at), kind));
                    }
                }
                Effect::Return(value) => {
                    let (ret, func) = (value.as_ref().map(RtValue::ty), frame.func);
                    if ret != func.ret {
                        let kind = malformed(format!("return type differs from @{}'s", func.name));
                        return Err(self.error_at(&stack, Some(inst), kind));
                    }
                    if let Some(done) = stack.pop() {
                        slots -= done.values.len();
                        done.allocas.iter().for_each(|&p| mem.free_stack(p));
                    }
                    let Some(caller) = stack.last_mut() else {
                        return Ok(value);
                    };
                    let call = caller
                        .current_inst()
                        .and_then(|i| caller.func.dfg.inst_result(i));
                    if let (Some(v), Some(r)) = (call, value) {
                        if let Some(slot) = caller.values.get_mut(v.index()) {
                            *slot = Some(r);
                        }
                    }
                    caller.pos += 1;
                }
                Effect::Call { callee, args } => {
                    let more = self
                        .module
                        .function(callee)
                        .map_or(0, |f| f.dfg.num_values());
                    if stack.len() >= self.max_depth || slots + more > MAX_FRAME_SLOTS {
                        let kind = ErrorKind::StackOverflow(self.max_depth);
                        return Err(self.error_at(&stack, Some(inst), kind));
                    }
                    let Some(body) = self.module.function(callee) else {
                        return Err(self.error_at(
                            &stack,
                            Some(inst),
                            malformed("callee has no body"),
                        ));
                    };
                    match self.new_frame(body, args) {
                        Ok(f) => {
                            slots += f.values.len();
                            stack.push(f);
                        }
                        Err(kind) => {
                            // The callee itself is malformed: locate the error in it, with
                            // the call as the innermost call site.
                            let mut e = self.error_at(&stack, Some(inst), kind);
                            let site = e.location.replace(self.location(body, None));
                            e.callers.splice(0..0, site);
                            return Err(e);
                        }
                    }
                    stats.calls += 1;
                    stats.max_depth = stats.max_depth.max(stack.len());
                }
            }
        }
    }

    /// Moves `frame` along the edge taken by its terminator `branch` into `dest`,
    /// evaluating the φs of `dest` in parallel.
    fn enter_block(
        &self,
        frame: &mut Frame<'m>,
        branch: Inst,
        dest: Block,
        stats: &mut RunStats,
    ) -> Result<(), (Inst, ErrorKind)> {
        let (func, from) = (frame.func, frame.block);
        let insts = func.layout.block_insts(dest);
        if insts.is_empty() || !func.layout.is_block_inserted(dest) {
            return Err((
                branch,
                malformed(format!("branch to {dest}, which is empty or not placed")),
            ));
        }
        let mut incoming = Vec::new();
        for &inst in insts {
            let InstData::Phi { incoming: pairs } = func.dfg.inst(inst) else {
                break;
            };
            let fail = |kind| (inst, kind);
            self.charge(stats, 1).map_err(fail)?;
            let (_, v) = pairs
                .iter()
                .find(|(b, _)| *b == from)
                .ok_or_else(|| fail(malformed(format!("φ has no incoming value for {from}"))))?;
            let value = frame
                .values
                .operand(*v)
                .ok_or_else(|| fail(ErrorKind::UndefinedValue(*v)))?;
            let result = func
                .dfg
                .inst_result(inst)
                .ok_or_else(|| fail(malformed("φ without result")))?;
            let ty = func.dfg.value_type(result);
            if ty != value.ty() {
                return Err(fail(malformed(format!(
                    "φ of type {ty} receives {}",
                    value.ty()
                ))));
            }
            incoming.push((result, value.clone()));
        }
        frame.pos = incoming.len();
        for (result, value) in incoming {
            if let Some(slot) = frame.values.get_mut(result.index()) {
                *slot = Some(value);
            }
        }
        frame.block = dest;
        Ok(())
    }
}
