// Writes the inputs of the encoding benchmarks, as benches/bench_inputs.cpp builds them, into the
// folder given: FAMILY.bin per encoding family ('/' in a name becomes '-') and document-NNN.bin
// per batch document. tests/peers/test_inputs.py holds scripts/peers' Python builders to them.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "bench_inputs.hpp"

namespace {

void write(const std::filesystem::path& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: bench_inputs_dump FOLDER\n");
    return 2;
  }
  const std::filesystem::path folder = argv[1];
  for (const benches::EncodingInput& input : benches::encoding_inputs()) {
    std::string name = input.family;
    for (char& c : name) c = c == '/' ? '-' : c;
    write(folder / (name + ".bin"), input.text());
  }
  const auto documents = benches::batch_documents();
  for (std::size_t i = 0; i < documents.size(); ++i) {
    std::string number = std::to_string(i);
    number.insert(0, number.size() < 3 ? 3 - number.size() : 0, '0');
    write(folder / ("document-" + number + ".bin"), documents[i]);
  }
  return 0;
}
