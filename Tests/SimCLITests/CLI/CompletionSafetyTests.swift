import Foundation
import SimCLI
import SimTestSupport
import Testing

/// Issue 53, item 1: completion never evaluates a file name. A library folder holds scenario
/// files whose names are commands (`$(…)`, backquotes), a glob and a space; pressing TAB after
/// `syncsim check` and `syncsim run Scenarios/` in bash, zsh and fish runs none of them and offers
/// each name as the literal text it is.
@Suite(.serialized) struct CompletionSafetyTests {
  static let hostileNames = ["$(touch PWNED1)", "`touch PWNED2`", "*", "quick start", "quickstart", "a;touch PWNED3"]

  /// A folder with `Scenarios/` holding the hostile names, and the script for `shell` in it.
  func world(_ shell: String, in directory: String) throws -> String {
    try FileManager.default.createDirectory(atPath: directory + "/Scenarios", withIntermediateDirectories: true)
    for name in Self.hostileNames {
      #expect(FileManager.default.createFile(atPath: directory + "/Scenarios/" + name + ".json", contents: Data()))
    }
    let script = directory + (shell == "zsh" ? "/_syncsim" : "/completion." + shell)
    try syncsim(["completion", shell]).out.write(toFile: script, atomically: true, encoding: .utf8)
    return script
  }

  /// The files a completion made (none may appear).
  func planted(_ directory: String) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasPrefix("PWNED") }.sorted()
  }

  @Test func bashOffersHostileNamesLiterallyAndRunsNone() throws {
    try withTemporaryDirectory { directory in
      let script = try world("bash", in: directory)
      let complete = { (words: [String]) -> [String] in
        let quoted = words.map { "'\($0)'" }.joined(separator: " ")
        let out = runShell(
          "/bin/bash",
          ["-c", "source '\(script)'; COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1); _syncsim; "
            + "printf '%s\\n' \"${COMPREPLY[@]}\""], in: directory)
        return out.split(separator: "\n").map(String.init)
      }
      let offered = complete(["syncsim", "check", ""])
      #expect(Set(offered) == Set(Self.hostileNames), "\(offered)")
      #expect(complete(["syncsim", "check", "quick"]).sorted() == ["quick start", "quickstart"])
      let files = complete(["syncsim", "run", "Scenarios/"])
      #expect(files.contains("Scenarios/$(touch PWNED1).json"), "\(files)")
      #expect(complete(["syncsim", "compare", "a", "b", "--format", "m"]) == ["markdown"])
      #expect(try planted(directory).isEmpty, "a file name ran as a command")
    }
  }

  @Test func zshOffersHostileNamesLiterallyAndRunsNone() throws {
    guard let zsh = shellPath("zsh") else {
      Issue.record("zsh is missing and could not be installed")
      return
    }
    try withTemporaryDirectory { directory in
      _ = try world("zsh", in: directory)
      // An interactive zsh in a pseudo-terminal (zpty), where TAB runs the completion system.
      let driver = """
        zmodload zsh/zpty
        zpty z zsh -f -i
        zpty -w z "PS1='> '; fpath=('\(directory)' \\$fpath); autoload -U compinit; compinit -u -D; cd '\(directory)'"
        zpty -w -n z $'syncsim check \\t\\t'
        sleep 1
        zpty -w -n z $'\\C-u syncsim run Scenarios/\\t\\t'
        sleep 1
        zpty -w z $'\\C-u echo END-OF-TEST'
        all=""
        while zpty -r -t z line; do all+="$line"; [[ $all == *END-OF-TEST*END-OF-TEST* ]] && break; done
        print -r -- "$all"
        zpty -d z
        """
      let out = runShell(zsh, ["-f", "-c", driver], in: directory)
      #expect(out.contains("quickstart"), "the check completion ran: \(out.suffix(600))")
      #expect(out.contains("\\$\\(touch\\ PWNED1\\)"), "the name offered, quoted: \(out.suffix(600))")
      #expect(!out.contains("doubled rest argument"), "the script is well formed")
      #expect(try planted(directory).isEmpty, "a file name ran as a command")
    }
  }

  @Test func fishOffersHostileNamesLiterallyAndRunsNone() throws {
    guard let fish = shellPath("fish") else {
      Issue.record("fish is missing and could not be installed")
      return
    }
    try withTemporaryDirectory { directory in
      let script = try world("fish", in: directory)
      let out = runShell(
        fish, ["--no-config", "-c", "source '\(script)'; complete -C 'syncsim run Scenarios/'; complete -C 'syncsim check '"],
        in: directory)
      #expect(out.contains("Scenarios/$(touch PWNED1).json"), "\(out)")
      #expect(try planted(directory).isEmpty, "a file name ran as a command")
    }
  }
}

/// The path of `name` (a shell), installing it with apt-get when it is missing and this is root.
func shellPath(_ name: String) -> String? {
  let path = "/usr/bin/" + name
  if FileManager.default.isExecutableFile(atPath: path) { return path }
  guard getuid() == 0 else { return nil }
  _ = runShell("/bin/sh", ["-c", "apt-get install -y -qq \(name) >/dev/null 2>&1 || (apt-get update -qq && apt-get install -y -qq \(name)) >/dev/null 2>&1"], in: "/")
  return FileManager.default.isExecutableFile(atPath: path) ? path : nil
}

/// Runs `executable` with `arguments` in `directory`; its standard output and error, together.
func runShell(_ executable: String, _ arguments: [String], in directory: String) -> String {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: executable)
  process.arguments = arguments
  process.currentDirectoryURL = URL(fileURLWithPath: directory)
  let pipe = Pipe()
  process.standardOutput = pipe
  process.standardError = pipe
  process.standardInput = FileHandle.nullDevice
  do { try process.run() } catch { return "" }
  let data = pipe.fileHandleForReading.readDataToEndOfFile()
  process.waitUntilExit()
  return String(decoding: data, as: UTF8.self)
}
