import SimKernel

/// The state of one iCloud account: its devices, and what it stores against its quota.
struct AccountState {
  /// Devices signed in to it (for the single-device account policy).
  var deviceCount: Int32 = 0
  /// Bytes its records and assets take at the server.
  var usageBytes: Int64 = 0
  /// Its iCloud quota in bytes (nil: unlimited).
  var quotaBytes: Int64?
}
