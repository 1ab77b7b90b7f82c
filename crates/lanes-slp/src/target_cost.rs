//! Prices from the target's own cost model (SuperVectorization, PLDI'22 §4.3: "we use
//! LLVM's target cost model"): each instruction or shuffle the packer weighs is written
//! as a small function of its own — the scalar instruction, its vector form on `n`
//! lanes, a masked access, a vector built from scalars, a lane extracted — and priced by
//! a [`CodeCost`], which for real targets is LLVM's `TargetTransformInfo` on the exported
//! function (`lanes_llvm::code_cost`). Where AVX2 splits a 16-lane vector in two, masks
//! stores of bytes lane by lane or scalarizes `llvm.sin`, the prices say so, and packs
//! that would not pay are not made.
//!
//! A query is answered once per distinct function (the instruction with its operand and
//! result types), so a tree of hundreds of packs asks the target a few dozen times.
//! Code the target cannot price is never packed: its vector form costs more than any
//! saving.

use std::cell::RefCell;
use std::collections::HashMap;

use lanes_ir::{FuncBuilder, Function, Inst, InstData, Intrinsic, ScalarType, Type, Value};

use crate::cost::Prices;

/// The target's prices, in its own unit (reciprocal throughput); `None` where the
/// target cannot price the code.
pub trait CodeCost {
    /// The cost of the body of `func`.
    fn cost(&self, func: &Function) -> Option<i64>;
    /// The cost of a vector of type `ty` built from one scalar per lane.
    fn build(&self, ty: Type) -> Option<i64>;
}

impl CodeCost for lanes_llvm::code_cost::TargetCostModel {
    fn cost(&self, func: &Function) -> Option<i64> {
        self.function_cost(func)
    }

    fn build(&self, ty: Type) -> Option<i64> {
        self.build_cost(ty)
    }
}

/// The price of what cannot be priced: more than packing any tree saves.
const UNPRICED: i64 = 1 << 20;

/// [`Prices`] asked of a target's [`CodeCost`].
pub struct TargetCost<'c> {
    code: &'c dyn CodeCost,
    register_bits: u32,
    cache: RefCell<HashMap<String, Option<i64>>>,
}

impl<'c> TargetCost<'c> {
    /// Prices from `code`, packing at most `register_bits` per vector.
    pub fn new(code: &'c dyn CodeCost, register_bits: u32) -> Self {
        TargetCost {
            code,
            register_bits,
            cache: RefCell::new(HashMap::new()),
        }
    }

    /// The price named `key`, computed by `ask` the first time only.
    fn cached(&self, key: &str, ask: impl FnOnce() -> Option<i64>) -> Option<i64> {
        if let Some(&c) = self.cache.borrow().get(key) {
            return c;
        }
        let c = ask();
        self.cache.borrow_mut().insert(key.to_string(), c);
        c
    }

    /// The price of `snippet` (`None`: the target cannot price it).
    fn price(&self, snippet: &Snippet) -> Option<i64> {
        self.cached(&snippet.key, || self.code.cost(&snippet.func))
    }

    /// The price of a vector snippet; what cannot be priced is never worth packing.
    fn vector(&self, snippet: Option<Snippet>) -> i64 {
        snippet.and_then(|s| self.price(&s)).unwrap_or(UNPRICED)
    }
}

impl Prices for TargetCost<'_> {
    fn register_bits(&self) -> u32 {
        self.register_bits
    }

    fn inst(&self, f: &Function, inst: Inst, lanes: usize, masked: bool) -> i64 {
        // Registers carry φs and μ-nodes: no instruction of their own.
        if f.dfg.inst(inst).is_phi() {
            return 0;
        }
        let snippet = Snippet::instruction(f, inst, lanes, masked);
        if lanes == 1 {
            // A scalar instruction costs what the target says, at least nothing.
            return snippet.and_then(|s| self.price(&s)).unwrap_or(1);
        }
        self.vector(snippet)
    }

    fn lane_mask(&self, lanes: usize) -> i64 {
        self.build(ScalarType::I1, lanes)
    }

    fn build(&self, elem: ScalarType, lanes: usize) -> i64 {
        let ty = Type::vector(lanes as u16, elem);
        self.cached(&format!("build {ty:?}"), || self.code.build(ty))
            .unwrap_or(UNPRICED)
    }

    fn splat(&self, elem: ScalarType, lanes: usize) -> i64 {
        let ty = Type::vector(lanes as u16, elem);
        self.vector(Some(Snippet::of(
            "splat",
            &[Type::from(elem)],
            Some(ty),
            |b, p| {
                Some(b.value(
                    InstData::Intrinsic {
                        id: Intrinsic::Broadcast,
                        args: vec![p[0]],
                    },
                    ty,
                ))
            },
        )))
    }

    fn extract(&self, elem: ScalarType, lanes: usize) -> i64 {
        // A lane other than the first: the first is often free, the others are not.
        let ty = Type::vector(lanes as u16, elem);
        self.vector(Some(Snippet::of(
            "extract",
            &[ty],
            Some(Type::from(elem)),
            |b, p| {
                let lane = b.iconst(Type::I32, 1.min(lanes as i64 - 1));
                Some(b.value(
                    InstData::Intrinsic {
                        id: Intrinsic::Extract,
                        args: vec![p[0], lane],
                    },
                    Type::from(elem),
                ))
            },
        )))
    }

    fn permute(&self, elem: ScalarType, perm: &[u32]) -> i64 {
        let ty = Type::vector(perm.len() as u16, elem);
        self.vector(Some(Snippet::of("permute", &[ty], Some(ty), |b, p| {
            Some(b.value(
                InstData::Shuffle {
                    args: [p[0], p[0]],
                    mask: perm.to_vec(),
                },
                ty,
            ))
        })))
    }

    fn blend(&self, elem: ScalarType, lanes: usize) -> i64 {
        let ty = Type::vector(lanes as u16, elem);
        let mask = Type::vector(lanes as u16, ScalarType::I1);
        self.vector(Some(Snippet::of(
            "blend",
            &[mask, ty, ty],
            Some(ty),
            |b, p| Some(b.select(p[0], p[1], p[2])),
        )))
    }

    fn any(&self, lanes: usize) -> i64 {
        let mask = Type::vector(lanes as u16, ScalarType::I1);
        self.vector(Some(Snippet::of("any", &[mask], Some(Type::I1), |b, p| {
            Some(b.value(
                InstData::Intrinsic {
                    id: Intrinsic::Any,
                    args: vec![p[0]],
                },
                Type::I1,
            ))
        })))
    }
}

/// A function holding the code to price, and a key naming it for the cache.
struct Snippet {
    func: Function,
    key: String,
}

impl Snippet {
    /// A function of parameters `params` returning what `body` builds from them.
    fn of(
        name: &str,
        params: &[Type],
        ret: Option<Type>,
        body: impl FnOnce(&mut FuncBuilder, &[Value]) -> Option<Value>,
    ) -> Snippet {
        let mut func = Function::new("lanes_price", params, ret);
        let values: Vec<Value> = func.param_values().collect();
        let mut b = FuncBuilder::new(&mut func);
        let entry = b.create_block();
        b.switch_to_block(entry);
        let result = body(&mut b, &values);
        b.ret(result);
        let key = format!("{name} {params:?} -> {ret:?}: {:?}", func_body(&func));
        Snippet { func, key }
    }

    /// Instruction `inst` of `f` alone, its operands parameters: scalar if `lanes` is
    /// 1, else on vectors of `lanes` (loads and stores contiguous from one address,
    /// masked if `masked`). `None` for what is not packed as one instruction (calls,
    /// allocations, atomics, control flow) or is a vector already.
    fn instruction(f: &Function, inst: Inst, lanes: usize, masked: bool) -> Option<Snippet> {
        let data = f.dfg.inst(inst);
        let widen = |ty: Type| -> Option<Type> {
            match lanes {
                1 => Some(ty),
                _ if ty.is_vector() => None,
                n => Some(Type::vector(n as u16, ty.elem())),
            }
        };
        let result = match f.dfg.inst_result(inst) {
            Some(v) => Some(widen(f.dfg.value_type(v))?),
            None => None,
        };
        let access = data.mem_access();
        if access != Default::default() && lanes > 1 {
            return None;
        }
        match data {
            InstData::Load { ptr, align, .. } if lanes > 1 => {
                let ty = result?;
                let ptr_ty = f.dfg.value_type(*ptr);
                let align = *align;
                let params = if masked {
                    vec![ptr_ty, Type::vector(lanes as u16, ScalarType::I1), ty]
                } else {
                    vec![ptr_ty]
                };
                Some(Snippet::of("load", &params, Some(ty), |b, p| {
                    let data = if masked {
                        InstData::MaskedLoad {
                            ptr: p[0],
                            mask: p[1],
                            passthru: p[2],
                            align,
                        }
                    } else {
                        InstData::Load {
                            ptr: p[0],
                            align,
                            access: Default::default(),
                        }
                    };
                    Some(b.value(data, ty))
                }))
            }
            InstData::Store {
                value, ptr, align, ..
            } if lanes > 1 => {
                let ty = widen(f.dfg.value_type(*value))?;
                let ptr_ty = f.dfg.value_type(*ptr);
                let align = *align;
                let mut params = vec![ty, ptr_ty];
                if masked {
                    params.push(Type::vector(lanes as u16, ScalarType::I1));
                }
                Some(Snippet::of("store", &params, None, |b, p| {
                    let data = if masked {
                        InstData::MaskedStore {
                            value: p[0],
                            ptr: p[1],
                            mask: p[2],
                            align,
                        }
                    } else {
                        InstData::Store {
                            value: p[0],
                            ptr: p[1],
                            align,
                            access: Default::default(),
                        }
                    };
                    b.inst(data, None);
                    None
                }))
            }
            InstData::Iconst { .. }
            | InstData::Fconst { .. }
            | InstData::Unary { .. }
            | InstData::Binary { .. }
            | InstData::Icmp { .. }
            | InstData::Fcmp { .. }
            | InstData::Select { .. }
            | InstData::Cast { .. }
            | InstData::PtrAdd { .. }
            | InstData::Load { .. }
            | InstData::Store { .. }
            | InstData::Intrinsic { .. } => {
                // Each distinct operand becomes a parameter of its (widened) type.
                let mut operands: Vec<Value> = Vec::new();
                data.for_each_arg(|v| {
                    if !operands.contains(&v) {
                        operands.push(v);
                    }
                });
                let params = operands
                    .iter()
                    .map(|&v| widen(f.dfg.value_type(v)))
                    .collect::<Option<Vec<Type>>>()?;
                let mut data = data.clone();
                Some(Snippet::of(data.opcode_name(), &params, result, |b, p| {
                    data.for_each_arg_mut(|v| {
                        let k = operands.iter().position(|o| o == v).expect("an operand");
                        *v = p[k];
                    });
                    let inst = b.inst(data, result);
                    b.func.dfg.inst_result(inst)
                }))
            }
            _ => None,
        }
    }
}

/// The instructions of `func` in order, as the cache key's body.
fn func_body(func: &Function) -> Vec<&InstData> {
    func.layout
        .blocks()
        .flat_map(|b| func.layout.block_insts(b))
        .map(|&i| func.dfg.inst(i))
        .collect()
}
