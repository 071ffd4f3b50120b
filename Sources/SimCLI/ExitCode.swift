/// The process exit codes of `syncsim` (sysexits.h values where one fits).
public enum ExitCode: Int32, Error, Sendable {
  /// Everything worked and every expectation held.
  case success = 0
  /// A run failed or an expectation did not hold.
  case failure = 1
  /// The command line was wrong (EX_USAGE).
  case usage = 64
  /// The input data (a scenario) was wrong (EX_DATAERR).
  case dataError = 65
  /// Writing results failed (EX_CANTCREAT).
  case cannotCreate = 73
}
