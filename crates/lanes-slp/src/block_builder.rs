//! The block builder of SuperVectorization's lowering (PLDI'22 §3.5, Fig. 12): it
//! recreates basic blocks from control predicates while the items of one item list are
//! placed in order.
//!
//! The paper's builder keeps a *predicate table* from predicates to blocks and reuses a
//! block for every item with an equivalent predicate. Reusing a block that control has
//! already left would run a later item before the ones placed since, so here the table
//! is a stack of open guards: each frame is one conjunct of the current predicate, with
//! the block where code under all frames so far goes and the join block where its
//! guard's region ends. An item whose predicate keeps a prefix of the stack (compared by
//! hash-consed handle, so equivalent predicates match) reuses those frames and their
//! blocks; the other frames are closed (their block jumps to its join) and the missing
//! conjuncts are opened, each with a branch. A conjunct that is a disjunction, or a
//! conjunction nested in one, is tested by a short-circuit chain of branches.
//!
//! Two refinements keep the CFG close to the source's: opening `¬t` right after closing
//! `t`, with nothing placed in between, takes the else edge of `t`'s test (an if-then-else
//! rather than two ifs), and conjuncts are tested in the order their conditions are
//! defined, so that a condition is only read where the branches that guard its
//! definition have been taken.

use std::collections::HashMap;

use lanes_ir::{Block, Function, Inst, InstData};

use crate::predicate::{Pred, PredData, PredPool};

/// One open guard.
struct Frame {
    /// The conjunct (`true` for the bottom frame).
    term: Pred,
    /// Where the next item under this frame goes.
    block: Block,
    /// Where control continues when the guard is closed (unused for the bottom frame).
    join: Block,
    /// The blocks whose branch goes to `join` when the guard is false.
    false_edges: Vec<Block>,
}

/// The frame closed last, while nothing has been placed after it.
struct Closed {
    term: Pred,
    join: Block,
    false_edges: Vec<Block>,
    depth: usize,
}

/// Builds the blocks of one item list (a function body or one iteration of a loop).
pub(crate) struct BlockBuilder {
    frames: Vec<Frame>,
    closed: Option<Closed>,
    /// The predicate of the current block.
    cur_pred: Pred,
    /// The predicate table: the latest block of this list built for each predicate.
    table: HashMap<Pred, Block>,
    /// Items placed so far, and how many had been placed when each block stopped
    /// receiving code (absent: the current block).
    time: u64,
    ended: HashMap<Block, u64>,
}

/// What a builder needs besides itself: the function being built, the predicates and
/// the order in which to test conjuncts.
pub(crate) struct BuildCtx<'a> {
    pub func: &'a mut Function,
    pub preds: &'a mut PredPool,
    /// The position of a predicate's latest-defined condition.
    pub rank: &'a dyn Fn(&PredPool, Pred) -> u32,
}

impl BuildCtx<'_> {
    fn new_block(&mut self) -> Block {
        self.func.append_new_block()
    }

    fn append(&mut self, block: Block, data: InstData) {
        let inst = self.func.dfg.make_inst(data, None);
        self.func.layout.append_inst(inst, block);
    }

    /// Ends `block` with a jump to `dest`.
    pub fn jump(&mut self, block: Block, dest: Block) {
        self.append(block, InstData::Jump { dest });
    }

    /// Ends `from` with the branches that go to `on_true` when `p` holds and to
    /// `on_false` otherwise, short-circuiting conjunctions and disjunctions.
    pub fn branch_on(&mut self, from: Block, p: Pred, on_true: Block, on_false: Block) {
        match self.preds.data(p).clone() {
            PredData::True => self.jump(from, on_true),
            PredData::False => self.jump(from, on_false),
            PredData::Lit { cond, negated } => {
                let (then_dest, else_dest) = if negated {
                    (on_false, on_true)
                } else {
                    (on_true, on_false)
                };
                self.append(
                    from,
                    InstData::Brif {
                        cond,
                        then_dest,
                        else_dest,
                    },
                );
            }
            PredData::And(ps) | PredData::Or(ps) => {
                let is_and = matches!(self.preds.data(p), PredData::And(_));
                let ps = self.in_test_order(ps);
                let mut from = from;
                for (i, &q) in ps.iter().enumerate() {
                    if i + 1 == ps.len() {
                        self.branch_on(from, q, on_true, on_false);
                    } else {
                        let next = self.new_block();
                        if is_and {
                            self.branch_on(from, q, next, on_false);
                        } else {
                            self.branch_on(from, q, on_true, next);
                        }
                        from = next;
                    }
                }
            }
        }
    }

    /// `ps` in the order their conditions are defined.
    fn in_test_order(&self, mut ps: Vec<Pred>) -> Vec<Pred> {
        ps.sort_by_key(|&p| ((self.rank)(self.preds, p), p));
        ps
    }
}

impl BlockBuilder {
    /// A builder placing code under `true` into `entry`.
    pub fn new(entry: Block) -> Self {
        BlockBuilder {
            frames: vec![Frame {
                term: Pred::from_u32(0),
                block: entry,
                join: entry,
                false_edges: Vec::new(),
            }],
            closed: None,
            cur_pred: Pred::from_u32(0),
            table: HashMap::from([(Pred::from_u32(0), entry)]),
            time: 0,
            ended: HashMap::new(),
        }
    }

    /// Places `inst` under predicate `p`; returns the count of items placed so far (the
    /// item's time, for [`Self::finished_block_for`]).
    pub fn place(&mut self, cx: &mut BuildCtx<'_>, inst: Inst, p: Pred) -> u64 {
        let block = self.block_for(cx, p);
        cx.func.layout.append_inst(inst, block);
        self.time += 1;
        self.time
    }

    /// Counts an item placed by other means (a loop); returns its time.
    pub fn tick(&mut self) -> u64 {
        self.time += 1;
        self.time
    }

    /// Places `inst` where the item list ends: after every guard, in a block that runs
    /// whenever the list does (a `ret`).
    pub fn place_last(&mut self, cx: &mut BuildCtx<'_>, inst: Inst) {
        let block = self.close_all(cx);
        cx.func.layout.append_inst(inst, block);
        self.time += 1;
    }

    /// A block, no longer receiving code, that runs exactly when `p` holds in this run of
    /// the list and that ended after the item placed at time `after` — where an
    /// assignment can go at the end — if the predicate table has one.
    pub fn finished_block_for(&self, p: Pred, after: u64) -> Option<Block> {
        let &b = self.table.get(&p)?;
        let &end = self.ended.get(&b)?;
        (end >= after).then_some(b)
    }

    /// The current block stops receiving code.
    fn end_current(&mut self) {
        let b = self.current();
        self.ended.insert(b, self.time);
    }

    /// The block where code under the current predicate goes.
    pub fn current(&self) -> Block {
        self.frames.last().expect("the bottom frame stays").block
    }

    /// Continues the current predicate's code in `block` (after a loop, say).
    pub fn set_current(&mut self, block: Block) {
        self.end_current();
        self.frames
            .last_mut()
            .expect("the bottom frame stays")
            .block = block;
        self.table.insert(self.cur_pred, block);
        self.closed = None;
    }

    /// Ends the current block with a jump to a fresh one that takes its place, so that
    /// nothing more is placed in the block returned.
    pub fn seal(&mut self, cx: &mut BuildCtx<'_>) -> Block {
        let old = self.current();
        let next = cx.new_block();
        cx.jump(old, next);
        self.set_current(next);
        old
    }

    /// The block for code under predicate `p`, closing and opening guards as needed.
    pub fn block_for(&mut self, cx: &mut BuildCtx<'_>, p: Pred) -> Block {
        let wanted = cx.preds.conjuncts(p);
        let keep = 1 + self.frames[1..]
            .iter()
            .take_while(|f| wanted.contains(&f.term))
            .count();
        while self.frames.len() > keep {
            self.close_top(cx);
        }
        let open: Vec<Pred> = wanted
            .into_iter()
            .filter(|t| !self.frames.iter().any(|f| f.term == *t))
            .collect();
        for t in cx.in_test_order(open) {
            self.open(cx, t);
        }
        self.cur_pred = p;
        self.table.insert(p, self.current());
        self.current()
    }

    /// Closes every guard: the block returned runs whenever the item list does.
    pub fn close_all(&mut self, cx: &mut BuildCtx<'_>) -> Block {
        while self.frames.len() > 1 {
            self.close_top(cx);
        }
        self.cur_pred = cx.preds.always();
        self.table.insert(self.cur_pred, self.current());
        self.current()
    }

    fn close_top(&mut self, cx: &mut BuildCtx<'_>) {
        self.end_current();
        let f = self
            .frames
            .pop()
            .expect("only called above the bottom frame");
        cx.jump(f.block, f.join);
        self.frames
            .last_mut()
            .expect("the bottom frame stays")
            .block = f.join;
        self.closed = Some(Closed {
            term: f.term,
            join: f.join,
            false_edges: f.false_edges,
            depth: self.frames.len(),
        });
    }

    fn open(&mut self, cx: &mut BuildCtx<'_>, term: Pred) {
        let cur = self.current();
        self.end_current();
        if let Some(c) = self.closed.take() {
            let complement = cx.preds.not(c.term);
            if c.depth == self.frames.len()
                && !c.false_edges.is_empty()
                && c.join == cur
                && complement == term
                && cx.func.layout.block_insts(cur).is_empty()
            {
                // The else edge of the guard just closed.
                let els = cx.new_block();
                for b in c.false_edges {
                    let t = cx
                        .func
                        .layout
                        .last_inst(b)
                        .expect("a test ends in a branch");
                    cx.func.dfg.inst_mut(t).for_each_target_mut(|d| {
                        if *d == c.join {
                            *d = els;
                        }
                    });
                }
                self.frames.push(Frame {
                    term,
                    block: els,
                    join: c.join,
                    false_edges: Vec::new(),
                });
                return;
            }
        }
        let then = cx.new_block();
        let join = cx.new_block();
        let first = cx.func.dfg.num_blocks();
        cx.branch_on(cur, term, then, join);
        // The test's blocks: `cur` and those the chain created.
        let mut false_edges = vec![cur];
        false_edges.extend(
            (first..cx.func.dfg.num_blocks()).map(<Block as cranelift_entity::EntityRef>::new),
        );
        false_edges.retain(|&b| {
            cx.func
                .layout
                .last_inst(b)
                .is_some_and(|t| cx.func.dfg.inst(t).branch_targets().contains(&join))
        });
        self.frames.push(Frame {
            term,
            block: then,
            join,
            false_edges,
        });
    }
}
