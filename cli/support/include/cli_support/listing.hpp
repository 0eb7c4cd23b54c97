#pragma once

#include <algorithm>
#include <span>
#include <string>
#include <string_view>

namespace cli_support {

// One entry of a registry as a program's --list shows it.
struct ListedEntry {
  std::string_view name;
  std::string_view description;
  bool is_default = false;
  bool is_supported = true;
};

// The text of --list: one line per entry, the name first and padded to the longest, then the
// description, " (default)" and `unsupported_note` where they apply. Scripts read the first
// word of each line.
inline std::string listing_text(std::span<const ListedEntry> entries, std::string_view unsupported_note) {
  std::size_t width = 0;
  for (const ListedEntry& entry : entries) width = std::max(width, entry.name.size());
  std::string text;
  for (const ListedEntry& entry : entries) {
    text += entry.name;
    text.append(width + 2 - entry.name.size(), ' ');
    text += entry.description;
    if (entry.is_default) text += " (default)";
    if (!entry.is_supported) text += unsupported_note;
    text += '\n';
  }
  return text;
}

}  // namespace cli_support
