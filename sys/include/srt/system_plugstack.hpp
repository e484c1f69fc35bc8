// The file system walk_plugstack reads on a real node: files by read_text_file, includes by glob(3).
#pragma once
#include "srt/plugstack.hpp"

namespace srt {

PlugstackFs system_plugstack_fs();

}  // namespace srt
