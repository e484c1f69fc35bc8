// The smallest v1 recipe that loads (ATOM 1P1D behind AToMesh, one node each): the base the
// recipe tests add the keys they are about to.
#pragma once

namespace srt_test {

// A literal (constant-initialized), so the tests' own strings made from it never depend on the
// order in which a translation unit's statics are initialized.
inline constexpr char kMinimalRecipe[] =
    "name: t\nmodel: {path: m, container: c}\n"
    "resources: {gpus_per_node: 8, prefill_nodes: 1, decode_nodes: 1, prefill_workers: 1, decode_workers: 1}\n"
    "backend: {type: atom}\n"
    "frontend: {type: atomesh, enable_multiple_frontends: false}\n";

}  // namespace srt_test
