import SimMetrics
import SimScenario

/// The `syncsim` command: dispatches verb subcommands and maps errors to exit codes.
public enum SyncSimCommand {
  /// The version printed by `--version` and recorded in results.
  public static let version = "0.1.0"

  static let usage = """
    syncsim \(version): a deterministic simulator of Core Data / SwiftData sync through CloudKit

    usage: syncsim <command> [options]

    commands:
      run        run a scenario and write CSV results
      validate   check scenario files and report every problem
      check      run the scenario library against its committed results (for CI)
      sweep      parameter sweeps with replications, in parallel, sharded if needed
      merge      combine the shard folders of a sweep
      status     how far a sweep's shards have got: runs finished, shards missing, time left
      compare    compare two sweeps or runs: differences of means with 95 % intervals
      sensitivity  which assumed parameter the answer depends on: Morris screening over their ranges
      report     draw a run's or a sweep's results as one self-contained HTML page
      schema     print the JSON Schema of scenario files
      bench      speed benchmarks (kernel, fleet)
      swarm      random small worlds under random faults: invariants and liveness
      completion print a shell completion script: syncsim completion bash|zsh|fish
      help       help on a command: syncsim help run

    options:
      -h, --help show help (also after any command: syncsim run --help)
      --version  print the version

    exit codes: 0 success, 1 a run failed, 64 bad usage, 65 bad input data
    """

  /// Every command and its usage text, in the order the help lists them.
  static let commands: [(name: String, usage: String)] = [
    ("run", RunCommand.usage), ("validate", ValidateCommand.usage), ("check", CheckCommand.usage),
    ("sweep", SweepCommand.usage), ("merge", MergeCommand.usage), ("status", StatusCommand.usage),
    ("compare", CompareCommand.usage), ("sensitivity", SensitivityCommand.usage),
    ("report", ReportCommand.usage), ("trace", TraceCommand.usage), ("fit", FitCommand.usage),
    ("schema", SchemaCommand.usage), ("bench", BenchCommand.usage), ("swarm", SwarmCommand.usage),
    ("completion", CompletionCommand.usage),
  ]

  /// The help to print instead of running: `syncsim help COMMAND`, or `-h`/`--help` anywhere
  /// after a command (before any `--` value it could be, e.g. `--out -h`, which is rare enough).
  static func helpText(verb: String, rest: [String]) -> String? {
    if verb == "help" {
      // `syncsim help -h` (every command takes -h) is help about help: the overview.
      guard let name = rest.first, name != "-h", name != "--help" else { return usage }
      return commands.first { $0.name == name }?.usage
    }
    guard rest.contains("-h") || rest.contains("--help") else { return nil }
    return commands.first { $0.name == verb }?.usage
  }

  /// Runs `syncsim` with `arguments` (without the program name); returns the exit code.
  public static func main(arguments: [String], console: Console = .standard()) -> Int32 {
    guard let verb = arguments.first else {
      console.error(usage)
      return ExitCode.usage.rawValue
    }
    let rest = Array(arguments.dropFirst())
    if let help = helpText(verb: verb, rest: rest) {
      console.print(help)
      return ExitCode.success.rawValue
    }
    do throws(UsageError) {
      switch verb {
      case "--help", "-h":
        console.print(usage)
        return ExitCode.success.rawValue
      case "help":
        let name = rest.first ?? ""
        let guess = suggestion(for: name, among: commands.map(\.name)).map { " (did you mean '\($0)'?)" } ?? ""
        throw UsageError(
          "no command named '\(name)'\(guess) (commands: \(commands.map(\.name).joined(separator: ", ")))")
      case "--version":
        console.print(version)
        return ExitCode.success.rawValue
      case "bench": return try BenchCommand.run(rest, console: console).rawValue
      case "swarm": return try SwarmCommand.run(rest, console: console).rawValue
      case "run": return try RunCommand.run(rest, console: console).rawValue
      case "validate": return try ValidateCommand.run(rest, console: console).rawValue
      case "check": return try CheckCommand.run(rest, console: console).rawValue
      case "sweep": return try SweepCommand.run(rest, console: console).rawValue
      case "merge": return try MergeCommand.run(rest, console: console).rawValue
      case "status": return try StatusCommand.run(rest, console: console).rawValue
      case "compare": return try CompareCommand.run(rest, console: console).rawValue
      case "sensitivity": return try SensitivityCommand.run(rest, console: console).rawValue
      case "report": return try ReportCommand.run(rest, console: console).rawValue
      case "trace": return try TraceCommand.run(rest, console: console).rawValue
      case "fit": return try FitCommand.run(rest, console: console).rawValue
      case "schema": return SchemaCommand.run(rest, console: console).rawValue
      case "completion": return try CompletionCommand.run(rest, console: console).rawValue
      default:
        if verb.hasPrefix("-") {
          let guess = suggestion(for: verb, among: ["--help", "--version"]).map { " (did you mean \($0)?)" } ?? ""
          throw UsageError("unknown option \(verb)\(guess)")
        }
        let guess = suggestion(for: verb, among: commands.map(\.name)).map { " (did you mean '\($0)'?)" } ?? ""
        throw UsageError("unknown command '\(verb)'\(guess)")
      }
    } catch {
      console.error("error: \(optionGuess(error.message, verb: verb))")
      let known = commands.contains { $0.name == verb }
      console.error("run 'syncsim \(known ? verb + " " : "")--help' for usage")
      return ExitCode.usage.rawValue
    }
  }

  /// `message` with a did-you-mean for an unknown option of `verb`, from the options its
  /// completion offers (`--sed` → `--seed`).
  static func optionGuess(_ message: String, verb: String) -> String {
    let prefix = "unknown option "
    guard message.hasPrefix(prefix), !message.contains("did you mean"),
      let options = CompletionCommand.options.first(where: { $0.command == verb })?.options
    else { return message }
    let option = String(message.dropFirst(prefix.count).prefix { $0 != "=" })
    guard let guess = suggestion(for: option, among: options.filter { $0.hasPrefix("--") }) else { return message }
    return message + " (did you mean \(guess)?)"
  }
}
