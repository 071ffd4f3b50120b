import SimKernel
import SimModel

/// A scheduling stage (exportSchedule or importSchedule) of one row, split by cause: the parts
/// of it add up to the stage exactly.
public struct StageSplit: Sendable, Equatable {
  /// Time an activity of the row's chain waited for the scheduler's decision, a re-evaluation or
  /// its start, with no policy or wait cause refusing it.
  public var decision = SimDuration.zero
  /// Per policy or wait cause (`MetricsRecorder.policyNames`), the time it refused the chain's
  /// activities.
  public var blocked: [SimDuration]
  /// Per `LatencyRow.heldNames`, the time no activity of the chain stood waiting, and why.
  public var held: [SimDuration]
  /// Time with no activity behind it and no state that explains it. The audit fails on any;
  /// it is counted in `decision` so that the columns still add up.
  public var unexplained = SimDuration.zero

  init(policies: Int) {
    blocked = [SimDuration](repeating: .zero, count: policies)
    held = [SimDuration](repeating: .zero, count: LatencyRow.heldNames.count)
  }

  /// Every part, summed: the stage.
  public var total: SimDuration {
    decision + unexplained + blocked.reduce(.zero, +) + held.reduce(.zero, +)
  }
}

extension MetricsRecorder {
  /// The row's exportSchedule split by cause, or nil when the row never saved.
  ///
  /// Walks the chain of the writer store's exports back from the one that carried the row (or
  /// its newest, for a row never exported): each link's wait is decision time or a policy's or
  /// wait cause's block (its `activityBlocked` intervals), its run (for an earlier link) is
  /// `held.running`, and the time between links, before the first one or after a lost write, is
  /// booked from the device's and store's state (`HoldLog`).
  public func exportSplit(_ row: LatencyRow) -> StageSplit? {
    guard row.knownStages > 1 else { return nil }
    let saved = row.editedAt + row.stages.save
    return split(
      chain: Int(row.exportActivity), from: saved, to: saved + row.stages.exportSchedule,
      store: row.writerStore, device: row.writer, write: row.write)
  }

  /// The row's importSchedule split by cause, or nil when the row never reached it.
  public func importSplit(_ row: LatencyRow) -> StageSplit? {
    guard row.knownStages > 4, let committed = row.committedAt else { return nil }
    let notified = committed + row.stages.notify
    return split(
      chain: Int(row.importActivity), from: notified, to: notified + row.stages.importSchedule,
      store: row.observerStore, device: row.observer, write: .none)
  }

  /// The time within the row's upload and download stages its activity was suspended, and a
  /// hidden row's download (which no download took): zeros for stages the row never reached.
  public func transferSplit(_ row: LatencyRow) -> (uploadSuspended: SimDuration, downloadSuspended: SimDuration, hidden: SimDuration) {
    let suspended = Int32(policyNames.count - reportedCauses.count + Int(WaitCause.suspended.rawValue))
    func suspendedTime(_ activity: Int32, from: SimTime, to: SimTime) -> SimDuration {
      guard activity >= 0, to > from else { return .zero }
      var total = SimDuration.zero
      for interval in blocked(of: Int(activity)) where interval.policy == suspended {
        let overlap = min(interval.to, to) - max(interval.from, from)
        if overlap > .zero { total += overlap }
      }
      return total
    }
    var result = (SimDuration.zero, SimDuration.zero, SimDuration.zero)
    if row.knownStages > 2 {
      let start = row.editedAt + row.stages.save + row.stages.exportSchedule
      result.0 = suspendedTime(row.exportActivity, from: start, to: start + row.stages.upload)
    }
    if row.knownStages > 5, let committed = row.committedAt {
      if row.outcome == .hidden {
        result.2 = row.stages.download
      } else {
        let start = committed + row.stages.notify + row.stages.importSchedule
        result.1 = suspendedTime(row.importActivity, from: start, to: start + row.stages.download)
      }
    }
    return result
  }

  /// Splits [from, to) of a stage whose chain ends at activity `last` (-1 for none).
  ///
  /// The chain's links may overlap (an export asked for while another runs, or CKSyncEngine's
  /// manual send while an automatic one waits), so each instant goes to the first that holds:
  /// a link blocked by a policy or wait cause (the lowest-numbered, if two), a link waiting to
  /// start (decision), a link running (`held.running`), and else the state (`HoldLog`).
  func split(chain last: Int, from: SimTime, to: SimTime, store: StoreID, device: DeviceID, write: WriteID)
    -> StageSplit
  {
    var split = StageSplit(policies: policyNames.count)
    guard to > from else { return split }
    var upper = to
    // After the loss of its write, a row waits on nothing.
    if let lost = holdLog.lostAt[write], lost < to {
      upper = max(from, lost)
      split.held[HoldLog.Reason.lost.rawValue] += to - upper
    }
    guard upper > from else { return split }
    // Most rows: one link, asked for by the save (or before it), waiting the whole window with
    // nothing blocking it or the link before it: all decision, with no walk.
    if last >= 0, blockedIntervals[Int32(last)] == nil, activities[last].requestedAt <= from,
      (activities[last].startedAt ?? activities[last].finishedAt ?? endTime) >= upper
    {
      let previous = Int(activities[last].previousOfKind)
      if previous < 0 || blockedIntervals[Int32(previous)] == nil {
        split.decision = upper - from
        return split
      }
    }
    // Each link's edges inside the window, as (time, kind, link's index into `failed`). Kinds:
    // 0 waiting starts, 1 waiting ends, 2 running starts, 3 running ends, 4 the link is over
    // (whether it failed decides the gap after it), then 5 + 2·policy a block starts and
    // 6 + 2·policy it ends.
    var edges: [(at: SimTime, kind: Int, link: Int)] = []
    var failed: [Bool] = []
    var index = last
    var wholeBefore = 0
    var before: (end: SimTime, failed: Bool)?
    // Links before the window still count while they may overlap it; two in a row that ended
    // before it end the walk (at most a running and a pending one overlap).
    while index >= 0 && wholeBefore < 2 {
      let activity = activities[index]
      let intervals = blocked(of: index)
      // A block may begin before the activity was asked for: a quota stall is reported on the
      // export asked for when the quota grows, from the failure that stalled the store.
      let start = intervals.reduce(activity.requestedAt) { min($0, $1.from) }
      let waitEnd = activity.startedAt ?? activity.finishedAt ?? endTime
      let runEnd = activity.startedAt == nil ? waitEnd : (activity.finishedAt ?? endTime)
      // A link cancelled (the app terminated) leaves the chain as a failed one does: nothing asks
      // again until the client does (issue 71: a push-launched app's 6 s of running after its
      // store's import was cancelled at a termination had no cause). A store disabled, removed or
      // reset has its own hold, which `HoldLog.book` reads first.
      let linkFailed = activity.finishedAt != nil && !activity.succeeded
      index = Int(activity.previousOfKind)
      if runEnd <= from {
        wholeBefore += 1
        if before.map({ runEnd > $0.end }) ?? true { before = (runEnd, linkFailed) }
        continue
      }
      wholeBefore = 0
      guard start < upper else { continue }
      let link = failed.count
      failed.append(linkFailed)
      let clip = { (time: SimTime) in min(max(time, from), upper) }
      edges.append((clip(start), 0, link))
      edges.append((clip(waitEnd), 1, link))
      if activity.startedAt != nil {
        edges.append((clip(waitEnd), 2, link))
        edges.append((clip(runEnd), 3, link))
      }
      if runEnd < upper { edges.append((runEnd, 4, link)) }
      for interval in intervals where interval.to > from && interval.from < upper {
        edges.append((clip(interval.from), 5 + 2 * Int(interval.policy), link))
        edges.append((clip(interval.to), 6 + 2 * Int(interval.policy), link))
      }
    }
    edges.sort { $0.at != $1.at ? $0.at < $1.at : $0.kind < $1.kind }
    var waiting = 0
    var running = 0
    var blocking = [Int](repeating: 0, count: policyNames.count)
    var blockingCount = 0
    var afterFailure = before?.failed ?? false
    var cursor = from
    func book(until time: SimTime) {
      guard time > cursor else { return }
      if blockingCount > 0, let policy = blocking.firstIndex(where: { $0 > 0 }) {
        split.blocked[policy] += time - cursor
      } else if waiting > 0 {
        split.decision += time - cursor
      } else if running > 0 {
        split.held[HoldLog.Reason.running.rawValue] += time - cursor
      } else {
        split.unexplained += holdLog.book(
          from: cursor, to: time, store: store, device: device, write: write, afterFailure: afterFailure,
          into: &split.held)
      }
      cursor = time
    }
    for edge in edges {
      book(until: edge.at)
      switch edge.kind {
      case 0: waiting += 1
      case 1: waiting -= 1
      case 2: running += 1
      case 3: running -= 1
      case 4: afterFailure = failed[edge.link]
      default:
        let policy = (edge.kind - 5) / 2
        let delta = edge.kind % 2 == 1 ? 1 : -1
        blocking[policy] += delta
        blockingCount += delta
      }
    }
    book(until: upper)
    return split
  }
}
