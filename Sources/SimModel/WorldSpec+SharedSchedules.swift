extension WorldSpec {
  /// Gives each of `devices` (indices into `devices`) `workload`, stored once for all of them.
  public mutating func setWorkload(_ workload: Workload?, of indices: [Int]) {
    guard let first = indices.first else { return }
    devices[first].workload = workload
    let template = devices[first]
    for index in indices.dropFirst() { devices[index].shareWorkload(of: template) }
  }

  /// Gives each of `devices` (indices into `devices`) `usage`, stored once for all of them.
  public mutating func setUsage(_ usage: UsageModel?, of indices: [Int]) {
    guard let first = indices.first else { return }
    devices[first].usage = usage
    let template = devices[first]
    for index in indices.dropFirst() { devices[index].shareUsage(of: template) }
  }
}
