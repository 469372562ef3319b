// Subcommand registry for the `openrecipes` executable: each src/cli/<name>.cpp registers itself with a
// static Registration, so adding a subcommand never edits a shared file.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace openrecipes::cli {

/// A subcommand: `setup` adds its options to `app` (already named and described) and returns the action that
/// runs after parsing. The action returns an exit code (0 ok, 1 check failed); it throws InputError for bad
/// input (exit 2).
struct Command {
  std::string name;
  std::string description;
  std::function<std::function<int()>(CLI::App& app)> setup;
};

/// Registers a command (called from static initialisers). Returns true so it can initialise a static bool.
bool register_command(Command command);

/// All registered commands, sorted by name.
std::vector<Command> registered_commands();

}  // namespace openrecipes::cli
