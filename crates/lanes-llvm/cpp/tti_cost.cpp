// The one query lanes needs from LLVM that its C API does not offer: the target's cost
// model (TargetTransformInfo) for the instructions of a function, as LLVM's own
// vectorizers consult it. Reciprocal throughput, the measure the loop and SLP
// vectorizers use to compare scalar and vector code.

#include <cstdint>

#include <llvm-c/Core.h>
#include <llvm-c/TargetMachine.h>
#include <llvm/Analysis/TargetTransformInfo.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/Instructions.h>
#include <llvm/Target/TargetMachine.h>

// The summed cost of every instruction of `fn` on the target of `tm`, or -1 where the
// target cannot lower one of them (an invalid cost).
extern "C" int64_t lanes_tti_function_cost(LLVMTargetMachineRef tm, LLVMValueRef fn) {
  auto *machine = reinterpret_cast<llvm::TargetMachine *>(tm);
  auto *function = llvm::unwrap<llvm::Function>(fn);
  llvm::TargetTransformInfo tti = machine->getTargetTransformInfo(*function);
  int64_t total = 0;
  for (llvm::BasicBlock &block : *function) {
    for (llvm::Instruction &inst : block) {
      llvm::InstructionCost cost =
          tti.getInstructionCost(&inst, llvm::TargetTransformInfo::TCK_RecipThroughput);
      if (!cost.isValid()) {
        return -1;
      }
      total += *cost.getValue();
    }
  }
  return total;
}

// The cost of putting a scalar into every lane (`insert`) and/or of reading every lane
// out (`extract`) of a vector of the type of `fn`'s first parameter: what LLVM's SLP
// vectorizer charges for a vector built from scalars, priced per 128-bit part rather
// than as a chain of single insertions. -1 if the parameter is not a fixed vector.
extern "C" int64_t lanes_tti_scalarization_cost(LLVMTargetMachineRef tm, LLVMValueRef fn,
                                                int insert, int extract) {
  auto *machine = reinterpret_cast<llvm::TargetMachine *>(tm);
  auto *function = llvm::unwrap<llvm::Function>(fn);
  if (function->arg_size() == 0) {
    return -1;
  }
  auto *vector = llvm::dyn_cast<llvm::FixedVectorType>(function->getArg(0)->getType());
  if (vector == nullptr) {
    return -1;
  }
  llvm::TargetTransformInfo tti = machine->getTargetTransformInfo(*function);
  llvm::APInt lanes = llvm::APInt::getAllOnes(vector->getNumElements());
  llvm::InstructionCost cost = tti.getScalarizationOverhead(
      vector, lanes, insert != 0, extract != 0, llvm::TargetTransformInfo::TCK_RecipThroughput);
  return cost.isValid() ? *cost.getValue() : -1;
}
