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
        "--shard", "--shards", "--checkpoint-seconds", "--event-log", "--assumptions", "--help",
      ]
    ),
    ("validate", ["--strict", "--estimate", "--accept-large", "--shard", "--help"]),
    ("check", ["--baseline", "--junit", "--markdown", "--update", "--lenient", "--help"]),
    (
      "sweep",
      [
        "--set", "--zip", "--exclude", "--seeds", "--jobs", "--out", "--shard", "--shards", "--metric",
        "--accept-large",
        "--help",
      ]
    ),
    ("merge", ["--out", "--partial", "--help"]),
    ("status", ["--help"]),
    ("compare", ["--all", "--force", "--fail-on", "--format", "--baseline-point", "--help"]),
    (
      "sensitivity",
      [
        "--metric", "--only", "--method", "--trajectories", "--seeds", "--jobs", "--out", "--accept-large", "--shard",
        "--merge", "--versus", "--help",
      ]
    ),
    ("report", ["--write", "--metric", "--x", "--x-scale", "--title", "--label", "--out", "--help"]),
    ("trace", ["--out", "--name", "--clock-offset", "--date", "--utc-offset", "--help"]),
    (
      "fit",
      [
        "--scenario", "--out", "--holdout", "--particles", "--generations", "--max-worlds", "--seed", "--jobs",
        "--regression-adjust", "--early-share", "--assumptions", "--clock-offset", "--date", "--utc-offset", "--help",
      ]
    ),
    ("schema", ["policies", "records", "diff", "--help"]),
    (
      "bench",
      [
        "kernel", "fleet", "fit", "sbc", "estimate", "sensitivity", "--pending", "--events", "--accounts", "--hours",
        "--edits-per-hour",
        "--rounds", "--jobs", "--batch-devices", "--one-kernel", "--scenario", "--days", "--draws", "--particles",
        "--max-worlds", "--regression-adjust", "--early-share", "--durations", "--trajectories", "--seeds", "--help",
      ]
    ),
    ("swarm", ["--runs", "--seed", "--jobs", "--out", "--show", "--help"]),
    ("completion", ["bash", "zsh", "fish"]),
    (
      "help",
      [
        "run", "validate", "check", "sweep", "merge", "status", "compare", "sensitivity", "report", "trace", "fit",
        "schema", "bench", "swarm", "completion",
      ]
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

  /// The bash script. No file name, option or typed word is ever evaluated: candidates are kept
  /// only by literal prefix match (`[[ $name == "$cur"* ]]`) and read line by line (`mapfile`),
  /// never passed through `compgen -W` (which expands `$(...)` and backquotes in its word list)
  /// nor split and globbed by an unquoted `$(...)`.
  static func bash() -> String {
    let cases = options.map { "    \($0.command)) opts=(\($0.options.joined(separator: " "))) ;;" }
      .joined(separator: "\n")
    return """
      # bash completion for syncsim (syncsim completion bash)
      # Candidates are matched as literal text; no file name is ever evaluated.
      _syncsim_words() {
        local word
        for word in "${@:2}"; do
          [[ "$word" == "$1"* ]] && COMPREPLY+=("$word")
        done
      }
      _syncsim() {
        local cur prev word
        local -a opts
        COMPREPLY=()
        cur="${COMP_WORDS[COMP_CWORD]}"
        prev="${COMP_WORDS[COMP_CWORD-1]}"
        if [ "$COMP_CWORD" -eq 1 ]; then
          _syncsim_words "$cur" \(commandNames) --help --version
          return 0
        fi
        case "$prev" in
          --out|--baseline|--junit|--markdown) mapfile -t COMPREPLY < <(compgen -f -- "$cur"); return 0 ;;
          --set|--exclude) _syncsim_words "$cur" push.dropProbability cloud.requestLatency duration seed; return 0 ;;
          --metric) _syncsim_words "$cur" "${_syncsim_metrics[@]}"; return 0 ;;
          --fail-on) _syncsim_words "$cur" worse better changed; return 0 ;;
          --format) _syncsim_words "$cur" text csv json markdown; return 0 ;;
        esac
        # check takes the library's scenario names too (quickstart for Scenarios/quickstart.json).
        if [ "${COMP_WORDS[1]}" = "check" ] && [[ "$cur" != -* ]] && [ -d Scenarios ]; then
          for word in Scenarios/*.json; do
            [ -f "$word" ] || continue
            word="${word#Scenarios/}"
            word="${word%.json}"
            [ "$word" = schema ] && continue
            [[ "$word" == "$cur"* ]] && COMPREPLY+=("$word")
          done
          return 0
        fi
        case "${COMP_WORDS[1]}" in
      \(cases)
          *) opts=() ;;
        esac
        _syncsim_words "$cur" "${opts[@]}"
        if [[ "$cur" != -* ]] && [ "${COMP_WORDS[1]}" != "completion" ] && [ "${COMP_WORDS[1]}" != "help" ]; then
          mapfile -t -O "${#COMPREPLY[@]}" COMPREPLY < <(compgen -f -X '!*.json' -- "$cur"; compgen -d -- "$cur")
        fi
      }
      # Metric names (for expect and tolerances): \(metricNames.prefix(60))…
      _syncsim_metrics=(\(metricNames))
      complete -o filenames -F _syncsim syncsim
      """
  }

  /// The zsh script. Candidates go to `compadd` as literal words (arrays, `compadd -a`), and the
  /// library's names come from a glob with modifiers, so no file name is evaluated.
  static func zsh() -> String {
    let cases = options.map { "    (\($0.command)) opts=(\($0.options.joined(separator: " "))) ;;" }
      .joined(separator: "\n")
    return """
      #compdef syncsim
      # zsh completion for syncsim (syncsim completion zsh)
      # Candidates are literal words; no file name is ever evaluated.
      _syncsim_metrics=(\(metricNames))
      _syncsim() {
        local -a opts names
        if (( CURRENT == 2 )); then
          compadd -- \(commandNames) --help --version
          return
        fi
        case ${words[CURRENT-1]} in
          (--out|--baseline|--junit|--markdown) _files; return ;;
          (--set|--exclude) compadd -- push.dropProbability cloud.requestLatency duration seed; return ;;
          (--metric) compadd -a _syncsim_metrics; return ;;
          (--fail-on) compadd -- worse better changed; return ;;
          (--format) compadd -- text csv json markdown; return ;;
        esac
        case ${words[2]} in
      \(cases)
          (*) opts=() ;;
        esac
        compadd -a opts
        [[ ${words[CURRENT]} == -* ]] && return
        if [[ ${words[2]} == check && -d Scenarios ]]; then
          # The library's names (quickstart for Scenarios/quickstart.json), as literal words.
          names=(Scenarios/*.json(N:t:r))
          names=(${names:#schema})
          compadd -a names
        fi
        [[ ${words[2]} == (completion|help) ]] || _files -g '*.json'
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
