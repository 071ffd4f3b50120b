import SimMetrics

/// `syncsim completion bash|zsh|fish`: a shell completion script for commands, their options,
/// scenario files and metric names.
enum CompletionCommand {
  static let usage = """
    usage: syncsim completion bash|zsh|fish

    Prints a completion script. Install it with, for example:
      bash   syncsim completion bash > ~/.local/share/bash-completion/completions/syncsim
      zsh    syncsim completion zsh > "${fpath[1]}/_syncsim"
      fish   syncsim completion fish > ~/.config/fish/completions/syncsim.fish
    """

  /// Each command's options, as the completion offers them.
  static let options: [(command: String, options: [String])] = [
    (
      "run",
      [
        "--seed", "--duration", "--out", "--trace", "--accept-large", "--jobs", "--batch-devices", "--one-kernel",
        "--shard", "--help",
      ]
    ),
    ("validate", ["--strict", "--estimate", "--accept-large", "--shard", "--help"]),
    ("check", ["--baseline", "--junit", "--markdown", "--update", "--help"]),
    ("sweep", ["--set", "--zip", "--exclude", "--seeds", "--jobs", "--out", "--shard", "--accept-large", "--help"]),
    ("merge", ["--out", "--help"]),
    ("compare", ["--all", "--force", "--fail-on", "--format", "--help"]),
    ("report", ["--write", "--metric", "--x", "--out", "--help"]),
    ("schema", ["policies", "records", "diff", "--help"]),
    (
      "bench",
      [
        "kernel", "fleet", "--pending", "--events", "--accounts", "--hours", "--edits-per-hour", "--rounds", "--jobs",
        "--batch-devices", "--one-kernel", "--help",
      ]
    ),
    ("swarm", ["--runs", "--seed", "--jobs", "--out", "--show", "--help"]),
    ("completion", ["bash", "zsh", "fish"]),
    (
      "help",
      ["run", "validate", "check", "sweep", "merge", "compare", "report", "schema", "bench", "swarm", "completion"]
    ),
  ]

  static func run(_ arguments: [String], console: Console) throws(UsageError) -> ExitCode {
    switch arguments.first {
    case "bash": console.print(bash())
    case "zsh": console.print(zsh())
    case "fish": console.print(fish())
    default: throw UsageError("completion takes bash, zsh or fish")
    }
    return .success
  }

  static var commandNames: String { options.map(\.command).joined(separator: " ") }
  static var metricNames: String { RunSummary.metricNames.joined(separator: " ") }

  static func bash() -> String {
    let cases = options.map { "    \($0.command)) opts=\"\($0.options.joined(separator: " "))\" ;;" }
      .joined(separator: "\n")
    return """
      # bash completion for syncsim (syncsim completion bash)
      _syncsim() {
        local cur prev opts
        cur="${COMP_WORDS[COMP_CWORD]}"
        prev="${COMP_WORDS[COMP_CWORD-1]}"
        if [ "$COMP_CWORD" -eq 1 ]; then
          COMPREPLY=( $(compgen -W "\(commandNames) --help --version" -- "$cur") )
          return 0
        fi
        case "$prev" in
          --out|--baseline|--junit) COMPREPLY=( $(compgen -f -- "$cur") ); return 0 ;;
          --set|--exclude) COMPREPLY=( $(compgen -W "push.dropProbability cloud.requestLatency duration seed" -- "$cur") ); return 0 ;;
          --metric) COMPREPLY=( $(compgen -W "$_syncsim_metrics" -- "$cur") ); return 0 ;;
          --fail-on) COMPREPLY=( $(compgen -W "worse better changed" -- "$cur") ); return 0 ;;
          --format) COMPREPLY=( $(compgen -W "text csv json markdown" -- "$cur") ); return 0 ;;
        esac
        # check takes the library's scenario names too (quickstart for Scenarios/quickstart.json).
        if [ "${COMP_WORDS[1]}" = "check" ] && [[ "$cur" != -* ]] && [ -d Scenarios ]; then
          local names
          names=$(cd Scenarios && ls *.json 2>/dev/null | sed -e 's/[.]json$//' -e '/^schema$/d')
          COMPREPLY=( $(compgen -W "$names" -- "$cur") )
          return 0
        fi
        case "${COMP_WORDS[1]}" in
      \(cases)
          *) opts="" ;;
        esac
        if [[ "$cur" == -* ]] || [ "${COMP_WORDS[1]}" = "completion" ] || [ "${COMP_WORDS[1]}" = "help" ]; then
          COMPREPLY=( $(compgen -W "$opts" -- "$cur") )
        else
          COMPREPLY=( $(compgen -W "$opts" -- "$cur") $(compgen -f -X '!*.json' -- "$cur") $(compgen -d -- "$cur") )
        fi
      }
      # Metric names (for expect and tolerances): \(metricNames.prefix(60))…
      _syncsim_metrics="\(metricNames)"
      complete -o filenames -F _syncsim syncsim
      """
  }

  static func zsh() -> String {
    let cases = options.map {
      "    (\($0.command)) _arguments '*:option:(\($0.options.joined(separator: " ")))' '*:file:_files -g \"*.json\"' ;;"
    }
    .joined(separator: "\n")
    return """
      #compdef syncsim
      # zsh completion for syncsim (syncsim completion zsh)
      _syncsim_metrics=(\(metricNames))
      _syncsim() {
        if (( CURRENT == 2 )); then
          _values 'command' \(options.map(\.command).joined(separator: " ")) --help --version
          return
        fi
        case ${words[2]} in
      \(cases)
        esac
      }
      _syncsim "$@"
      """
  }

  static func fish() -> String {
    var lines = [
      "# fish completion for syncsim (syncsim completion fish)",
      "complete -c syncsim -f",
      "complete -c syncsim -n '__fish_use_subcommand' -a '\(commandNames)'",
    ]
    for (command, options) in options {
      let words = options.map { $0.hasPrefix("--") ? String($0.dropFirst(2)) : $0 }
      for (option, word) in zip(options, words) {
        lines.append(
          option.hasPrefix("--")
            ? "complete -c syncsim -n '__fish_seen_subcommand_from \(command)' -l \(word)"
            : "complete -c syncsim -n '__fish_seen_subcommand_from \(command)' -a \(word)")
      }
      if !["completion", "help"].contains(command) {
        lines.append(
          "complete -c syncsim -n '__fish_seen_subcommand_from \(command)' -F -a '(__fish_complete_suffix .json)'")
      }
    }
    lines.append("set -g __syncsim_metrics \(metricNames)")
    return lines.joined(separator: "\n")
  }
}
