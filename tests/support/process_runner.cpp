#include "process_runner.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <sstream>
#include <stdexcept>

extern char** environ;

namespace tokenizer::test {

namespace {

std::runtime_error system_error(const std::string& what) { return std::runtime_error(what + ": " + std::strerror(errno)); }

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

// Close-on-exec, so that the child keeps only the ends it dup2()s onto 0, 1 and 2.
struct Pipe {
  int read_end = -1;
  int write_end = -1;
  Pipe() {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) throw system_error("pipe");
    read_end = fds[0];
    write_end = fds[1];
  }
  ~Pipe() {
    close_fd(read_end);
    close_fd(write_end);
  }
  Pipe(const Pipe&) = delete;
  Pipe& operator=(const Pipe&) = delete;
};

// "NAME=value" strings: this process's environment with spec.env applied. Built before fork,
// since the child may only make async-signal-safe calls.
std::vector<std::string> child_environment(const ProcessSpec& spec) {
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    const std::string entry = *e;
    bool replaced = false;
    for (const auto& [name, value] : spec.env) replaced = replaced || entry.starts_with(name + "=");
    if (!replaced) env.push_back(entry);
  }
  for (const auto& [name, value] : spec.env) env.push_back(name + "=" + value);
  return env;
}

std::vector<char*> pointers_to(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (std::string& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// Feeds stdin and drains stdout and stderr together, so that neither side can block the other
// on a full pipe.
void exchange(int& to_child, int& from_out, int& from_err, const std::string& input, ProcessResult& result) {
  std::size_t written = 0;
  if (input.empty()) close_fd(to_child);
  std::string* sinks[] = {&result.out, &result.err};
  int* sources[] = {&from_out, &from_err};
  while (to_child >= 0 || from_out >= 0 || from_err >= 0) {
    pollfd fds[3] = {{to_child, POLLOUT, 0}, {from_out, POLLIN, 0}, {from_err, POLLIN, 0}};
    if (::poll(fds, 3, -1) < 0) {
      if (errno == EINTR) continue;
      throw system_error("poll");
    }
    if (fds[0].revents != 0) {
      const ssize_t n = ::write(to_child, input.data() + written, input.size() - written);
      // EPIPE: the child stopped reading; the rest of the input is not wanted.
      if (n < 0 && errno != EAGAIN && errno != EINTR) close_fd(to_child);
      if (n > 0) written += static_cast<std::size_t>(n);
      if (written == input.size()) close_fd(to_child);
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i + 1].revents == 0) continue;
      char buffer[1 << 16];
      const ssize_t n = ::read(*sources[i], buffer, sizeof buffer);
      if (n > 0) sinks[i]->append(buffer, static_cast<std::size_t>(n));
      else if (n == 0 || errno != EINTR) close_fd(*sources[i]);
    }
  }
}

}  // namespace

ProcessResult run_process(const ProcessSpec& spec) {
  // Writing to a child that has exited must fail with EPIPE rather than kill this process.
  static const bool sigpipe_ignored = ::signal(SIGPIPE, SIG_IGN) != SIG_ERR;
  (void)sigpipe_ignored;

  std::vector<std::string> argv_strings{spec.program};
  argv_strings.insert(argv_strings.end(), spec.args.begin(), spec.args.end());
  std::vector<std::string> env_strings = child_environment(spec);
  const std::vector<char*> argv = pointers_to(argv_strings);
  const std::vector<char*> envp = pointers_to(env_strings);

  Pipe in, out, err;
  const pid_t pid = ::fork();
  if (pid < 0) throw system_error("fork");
  if (pid == 0) {
    ::signal(SIGPIPE, SIG_DFL);  // ignored dispositions survive exec; the child gets the usual one
    ::dup2(in.read_end, STDIN_FILENO);
    ::dup2(out.write_end, STDOUT_FILENO);
    ::dup2(err.write_end, STDERR_FILENO);
    ::execve(spec.program.c_str(), argv.data(), envp.data());
    constexpr char kMessage[] = "exec failed\n";
    [[maybe_unused]] const ssize_t n = ::write(STDERR_FILENO, kMessage, sizeof kMessage - 1);
    ::_exit(127);
  }
  close_fd(in.read_end);
  close_fd(out.write_end);
  close_fd(err.write_end);
  ::fcntl(in.write_end, F_SETFL, O_NONBLOCK);

  ProcessResult result;
  exchange(in.write_end, out.read_end, err.read_end, spec.stdin_bytes, result);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) throw system_error("waitpid");
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

std::vector<std::string> lines_of(const std::string& output) {
  std::vector<std::string> lines;
  std::istringstream in(output);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

}  // namespace tokenizer::test
