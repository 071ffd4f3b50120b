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
}
