//! Modules: functions (defined or declared) and global variables.
//!
//! Calls name their callee by `FuncId` and `global_addr` its global by `GlobalId`, both
//! indices into the module, so a function is only fully meaningful in its module; the
//! verifier and the interpreter therefore take the module along.

use cranelift_entity::PrimaryMap;

use crate::entities::{FuncId, GlobalId};
use crate::function::{Function, Signature};
use crate::types::AddrSpace;

/// An external function: a name and a signature, no body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExternFunc {
    pub name: String,
    pub sig: Signature,
}

/// A module-level function.
#[derive(Clone, Debug)]
pub enum FuncEntry {
    Defined(Box<Function>),
    Declared(ExternFunc),
}

impl FuncEntry {
    pub fn name(&self) -> &str {
        match self {
            FuncEntry::Defined(f) => &f.name,
            FuncEntry::Declared(d) => &d.name,
        }
    }

    pub fn signature(&self) -> Signature {
        match self {
            FuncEntry::Defined(f) => f.signature(),
            FuncEntry::Declared(d) => d.sig.clone(),
        }
    }

    pub fn body(&self) -> Option<&Function> {
        match self {
            FuncEntry::Defined(f) => Some(f),
            FuncEntry::Declared(_) => None,
        }
    }
}

/// A global variable: `size` bytes, zero-filled or initialized from `init`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GlobalData {
    pub name: String,
    pub size: u64,
    pub align: u32,
    /// Initial bytes (`init.len() == size`), or `None` for zero-filled.
    pub init: Option<Vec<u8>>,
    /// Read-only (a constant table).
    pub constant: bool,
    pub space: AddrSpace,
}

/// A translation unit.
#[derive(Clone, Debug, Default)]
pub struct Module {
    pub funcs: PrimaryMap<FuncId, FuncEntry>,
    pub globals: PrimaryMap<GlobalId, GlobalData>,
}

impl Module {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn define(&mut self, func: Function) -> FuncId {
        self.funcs.push(FuncEntry::Defined(Box::new(func)))
    }

    pub fn declare(&mut self, name: impl Into<String>, sig: Signature) -> FuncId {
        self.funcs.push(FuncEntry::Declared(ExternFunc {
            name: name.into(),
            sig,
        }))
    }

    pub fn add_global(&mut self, global: GlobalData) -> GlobalId {
        self.globals.push(global)
    }

    /// Finds a function by name.
    pub fn func_by_name(&self, name: &str) -> Option<FuncId> {
        self.funcs
            .iter()
            .find(|(_, f)| f.name() == name)
            .map(|(id, _)| id)
    }

    pub fn global_by_name(&self, name: &str) -> Option<GlobalId> {
        self.globals
            .iter()
            .find(|(_, g)| g.name == name)
            .map(|(id, _)| id)
    }

    /// The defined function `id`, if it has a body.
    pub fn function(&self, id: FuncId) -> Option<&Function> {
        self.funcs.get(id).and_then(FuncEntry::body)
    }

    pub fn function_mut(&mut self, id: FuncId) -> Option<&mut Function> {
        match self.funcs.get_mut(id) {
            Some(FuncEntry::Defined(f)) => Some(f),
            _ => None,
        }
    }

    /// Defined functions in order.
    pub fn functions(&self) -> impl Iterator<Item = (FuncId, &Function)> {
        self.funcs
            .iter()
            .filter_map(|(id, f)| f.body().map(|b| (id, b)))
    }
}
