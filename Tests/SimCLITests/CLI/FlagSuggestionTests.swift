import Foundation
import SimTestSupport
import Testing

/// Issue 58, item 6 (in part): a mistyped flag gets a did-you-mean from the command's own
/// options, `--versoin` is an unknown option (not a command), and the usage hint names the command.
@Suite struct FlagSuggestionTests {
  @Test func mistypedFlagsAreNamedWithTheirGuess() {
    for (arguments, expected, hint) in [
      (["run", "x.json", "--sed", "3"], "unknown option --sed (did you mean --seed?)", "syncsim run --help"),
      (["sweep", "x.json", "--jbos", "2"], "unknown option --jbos (did you mean --jobs?)", "syncsim sweep --help"),
      (["report", "x", "--metirc=latency.p50"], "(did you mean --metric?)", "syncsim report --help"),
      (["--versoin"], "unknown option --versoin (did you mean --version?)", "syncsim --help"),
      (["compare", "a", "b", "--fail-no", "worse"], "(did you mean --fail-on?)", "syncsim compare --help"),
    ] {
      let result = syncsim(arguments)
      #expect(result.code == 64, "\(arguments)")
      #expect(result.err.contains(expected), "\(arguments): \(result.err)")
      #expect(result.err.contains("run '\(hint)' for usage"), "\(arguments): \(result.err)")
    }
    // Nothing near: no guess.
    let far = syncsim(["run", "x.json", "--zzzzzz"])
    #expect(far.code == 64 && !far.err.contains("did you mean"), "\(far.err)")
  }

  /// `check --baseline DIR` with no results there suggested `syncsim check --update quickstart`,
  /// which writes to Results/ and leaves the check failing: the command now keeps the baseline,
  /// and running it makes the check pass.
  @Test func aMissingBaselineSuggestsACommandThatWorks() throws {
    try withTemporaryDirectory { directory in
      let baseline = directory + "/base line"
      let first = syncsim(["check", "quickstart", "--baseline", baseline])
      #expect(first.code == 1)
      let line = try #require(first.out.split(separator: "\n").first { $0.contains("create them with: ") }, "\(first.out)")
      let command = String(line.split(separator: "with: ", maxSplits: 1)[1].dropLast())
      #expect(command == "syncsim check --update --baseline '\(baseline)' quickstart", "\(command)")
      #expect(syncsim(["check", "--update", "--baseline", baseline, "quickstart"]).code == 0)
      #expect(syncsim(["check", "quickstart", "--baseline", baseline]).code == 0)
    }
  }
}
