import SimKernel

/// One transition of an export activity's life after dasd starts it (spec §6): where it is, the
/// input that moves it, where it goes, what happens on the way, and the source.
///
/// The table is the export's documented path (`syncsim schema paths` prints it, with the
/// import's); `World.exportStep` is the one function that takes these transitions, each branch
/// naming its row, and debug builds count the rows taken so that a test can check that every
/// row is reached.
enum ExportTransition: Int, CaseIterable, ReactionTransitions {
  case nothingToExport, firstBatch, nextBatch, lastBatch, tooLarge, mergedAfterConflict, someRecordsFailed
  case waitForRetry, offline, quotaFull, recordRefused, syncTurnedOff, roundEnds, resetDeclared, stallDeclared
  case recreateZoneDeclared, savingZone, zoneSaved

  /// (from, input, to, what happens, source)
  var row: ActivityTransitionRow {
    switch self {
    case .nothingToExport:
      (
        "started", "no current change in the history", "finished", "\"Found 0 objects needing export\" after 35 ms",
        "[A] TN3163"
      )
    case .firstBatch:
      (
        "started", "changes planned", "sending batch 1",
        "history → records (a record's changes together) → batches at the request limits",
        "[A] TN3163, CKModifyRecordsOperation"
      )
    case .nextBatch:
      (
        "sending batch n", "saved, more batches", "sending batch n+1",
        "the batch commits at the server and a push fans out", "[A] TN3162"
      )
    case .lastBatch:
      (
        "sending batch n", "saved, last batch", "finished (succeeded)", "the history it covered is dropped",
        "[A] TN3163"
      )
    case .tooLarge:
      (
        "sending batch n", "limitExceeded", "sending batch n (half)",
        "the batch is split in half; one record alone fails the export", "[A] CKError limitExceeded"
      )
    case .mergedAfterConflict:
      (
        "sending batch n", "serverRecordChanged", "sending batch n (merged)",
        "the server's fields are merged in and the batch is sent again", "[A] RecordSavePolicy"
      )
    case .someRecordsFailed:
      (
        "sending batch n", "some records failed", "sending the failed records",
        "the saved ones commit; the failed ones are sent after the stated wait", "[A] CKError partialFailure"
      )
    case .waitForRetry:
      (
        "sending batch n", "retry-after or back-off", "finished (failed)",
        "a new export waits, under the fault's cause, until the stated time", "[A] TN3162"
      )
    case .offline:
      (
        "sending batch n", "networkUnavailable", "finished (failed)", "a new export waits on the network policy",
        "[A] CKError networkUnavailable"
      )
    case .quotaFull:
      (
        "sending batch n", "quotaExceeded", "finished (failed)", "the store's exports stall until the quota is freed",
        "[A] CKError quotaExceeded"
      )
    case .recordRefused:
      (
        "sending batch n", "a record refused", "finished (failed)", "every export fails until the data changes",
        "[A] CKError partialFailure"
      )
    case .syncTurnedOff:
      (
        "sending batch n", "sync turned off", "finished (failed)", "nothing the request carried commits",
        "[HowTo] toggling sync"
      )
    case .roundEnds:
      (
        "sending batch n", "limitExceeded (CKSyncEngine)", "finished (failed)",
        "the round ends, the changes stay pending and are sent again only when a change is added or the app "
          + "calls sendChanges",
        "[A] CKSyncEngine retries other errors; [RE] continueSendingChangesAfterFailure = 0"
      )
    case .resetDeclared:
      (
        "sending batch n", "a fault declaring a reset (zoneNotFound)", "finished (failed)",
        "the store resets: it fetches the whole zone from an empty token, and exports after",
        "[A] CKError zoneNotFound; [RE] reset reason ZoneDeleted"
      )
    case .stallDeclared:
      (
        "sending batch n", "a fault declaring a stall (accountTemporarilyUnavailable)", "finished (failed)",
        "the store asks for nothing, export or import, until the stated time, under the fault's cause",
        "[A] CKError accountTemporarilyUnavailable"
      )
    case .recreateZoneDeclared:
      (
        "sending batch n", "a fault declaring a zone recreation (zoneNotFound, CKSyncEngine)", "finished (failed)",
        "a new export is asked for at once: it saves the zone, then sends the changes again",
        "[A] CKError zoneNotFound; sample-cloudkit-sync-engine handleSentRecordZoneChanges"
      )
    case .savingZone:
      (
        "started", "the store's zone must be saved again", "saving the zone",
        "one modify-zones request, no records, before any batch",
        "[A] CKSyncEngine.PendingDatabaseChange.saveZone"
      )
    case .zoneSaved:
      (
        "saving the zone", "saved", "sending batch 1",
        "the changes are planned and sent as from started (finished at once when none is left)",
        "[A] CKModifyRecordZonesOperation"
      )
    }
  }

  /// The clients that take the transition.
  var clients: String {
    switch self {
    case .tooLarge, .syncTurnedOff: "Core Data"
    case .roundEnds, .recreateZoneDeclared: "CKSyncEngine"
    default: "both"
    }
  }
}

/// What moves an export: dasd started it, or the server answered its request.
enum ExportInput {
  case started
  case answered
}

extension ClientHost {
  /// The export's one transition function: from where `activity` is, on `input`.
  mutating func exportStep(_ activity: ActivityID, _ input: ExportInput, sim: inout Simulation<ModelEvent>) {
    let store = scheduler.activities[activity.index].store
    switch input {
    case .started:
      if clients.stores[store.index].zoneSavePending {
        exportTook(.savingZone)
        sendZoneSave(activity, sim: &sim)
        return
      }
      planAndSend(activity, store: store, sim: &sim)
    case .answered:
      if clients.runs[activity.index].savingZone {
        zoneSaveAnswered(activity, store: store, sim: &sim)
        return
      }
      exportAnswered(activity, store: store, sim: &sim)
    }
  }

  /// Plans the store's changes into batches and sends the first (or ends the export when there
  /// is nothing to send).
  mutating func planAndSend(_ activity: ActivityID, store: StoreID, sim: inout Simulation<ModelEvent>) {
    let covered = Int(clients.stores[store.index].savedCount)
    clients.runs[activity.index].historyCovered = Int32(covered)
    // Fill the activity slot's plan in place: slots are reused, so its buffers are too, and
    // they stay in cache (a plan per store would be cold on every export). `plans` is a column,
    // so the plan is written where it lies, from the history's rows read in place; `makePlan`
    // never touches `plans` or the history itself (growing either would move what it works on).
    while clients.plans.count <= activity.index { clients.plans.append(ExportPlan()) }
    clients.history[store.index].withRows(0..<covered) { changes in
      makePlan(store, changes: changes, into: &clients.plans[activity.index])
    }
    if clients.plans[activity.index].batchEnds.isEmpty {
      exportTook(.nothingToExport)
      dropExportedHistory(store, covered)
      sim.schedule(.exportRequestDone(activity), after: clients.settings.emptyExportDuration)
      return
    }
    exportTook(.firstBatch)
    sendNextBatch(activity, sim: &sim)
  }

  /// Sends the request that saves the store's zone again: a round trip, no records.
  mutating func sendZoneSave(_ activity: ActivityID, sim: inout Simulation<ModelEvent>) {
    let device = owner(of: scheduler.activities[activity.index].store)
    clients.runs[activity.index].savingZone = true
    sendRequest(
      .exportRequestDone(activity), for: activity, from: device, taking: requestLatency(device), notBefore: .zero,
      sim: &sim)
  }

  /// `exportStep` on the server's answer to the zone save: the request faults may answer it as
  /// they answer a batch; saved, the export goes on as from its start.
  mutating func zoneSaveAnswered(_ activity: ActivityID, store: StoreID, sim: inout Simulation<ModelEvent>) {
    clients.runs[activity.index].savingZone = false
    if clients.stores[store.index].disabled {
      exportTook(.syncTurnedOff)
      finishRun(activity, succeeded: false, sim: &sim)
      return
    }
    switch generalVerdict(activity, at: sim.now) {
    case .faulted(let failure):
      exportTook(ExportTransition(failure.reaction))
      reportRefusedRequest(store, .faulted(failure), (0, 0), at: sim.now)
      finishRun(activity, succeeded: false, sim: &sim)
      react(to: failure, of: activity, sim: &sim)
    default:
      report { $0.observeRequest(store: store, upload: true, records: 0, bytes: 0, at: sim.now) }
      clients.stores[store.index].zoneSavePending = false
      exportTook(.zoneSaved)
      planAndSend(activity, store: store, sim: &sim)
    }
  }

  /// A batch the server refused whole was sent all the same: `requestsUp` and `bytesUp` count it
  /// (a CKSyncEngine app that sent three oversized batches reported none). One that never left
  /// the device (offline) is not a request.
  func reportRefusedRequest(
    _ store: StoreID, _ verdict: RequestVerdict, _ sent: (records: Int32, bytes: Int64), at now: SimTime
  ) {
    switch verdict {
    case .accepted, .partlySaved: return
    case .faulted(let failure) where failure.error == .networkUnavailable: return
    case .resend, .faulted, .failed:
      report { $0.observe(.requestRefused(store: store, upload: true, records: sent.records, bytes: sent.bytes, at: now)) }
    }
  }

  /// `exportStep` on the server's answer to the current batch.
  mutating func exportAnswered(_ activity: ActivityID, store: StoreID, sim: inout Simulation<ModelEvent>) {
    if clients.stores[store.index].disabled {
      // Sync was turned off while the request was on the wire: the container it belonged to is
      // gone, so nothing it carried commits, and no later batch is sent.
      exportTook(.syncTurnedOff)
      clients.plans[activity.index].clear()
      finishRun(activity, succeeded: false, sim: &sim)
      return
    }
    if clients.plans[activity.index].batchEnds.isEmpty {
      finishRun(activity, succeeded: true, sim: &sim)  // the empty export's 35 ms are over
      return
    }
    // The batch as sent: a refusal may split it (limitExceeded).
    let batch = Int(clients.runs[activity.index].nextBatch)
    let sent = (
      records: clients.plans[activity.index].batchRecords[batch], bytes: clients.plans[activity.index].batchBytes[batch]
    )
    let verdict = exportVerdict(activity, at: sim.now)
    reportRefusedRequest(store, verdict, sent, at: sim.now)
    switch verdict {
    case .resend(let at):
      exportTook(clients.runs[activity.index].merged ? .mergedAfterConflict : .tooLarge)
      sendNextBatch(activity, notBefore: at, sim: &sim)
    case .faulted(let failure):
      // The export ends and releases its group; what follows is the fault's declared reaction.
      exportTook(ExportTransition(failure.reaction))
      endFailedExport(activity, sim: &sim)
      react(to: failure, of: activity, sim: &sim)
    case .failed(let error):
      endFailedExport(activity, sim: &sim)
      switch error {
      case .quotaExceeded:
        exportTook(.quotaFull)
        clients.stores[store.index].quotaStalled = true
        clients.stores[store.index].quotaStalledSince = sim.now
      case .limitExceeded where clients.stores[store.index].client == .syncEngine:
        exportTook(.roundEnds)
      default:
        exportTook(error == .limitExceeded ? .tooLarge : .recordRefused)  // fails until the data changes
      }
    case .partlySaved(let retryAt):
      // The saved records commit as a batch of their own; the failed ones are the next batch,
      // sent after the server's retry-after. Every record failed: the same batch again.
      // The request carried every record of the batch: it is reported whole, once.
      exportTook(.someRecordsFailed)
      let batch = Int(clients.runs[activity.index].nextBatch)
      report { $0.observeRequest(
        store: store, upload: true, records: clients.plans[activity.index].batchRecords[batch],
        bytes: clients.plans[activity.index].batchBytes[batch], at: sim.now) }
      if separateFailedRecords(activity, batch) { commitCurrentBatch(activity, reportingRequest: false, sim: &sim) }
      sendNextBatch(activity, notBefore: retryAt, sim: &sim)
    case .accepted:
      commitCurrentBatch(activity, sim: &sim)
      if Int(clients.runs[activity.index].nextBatch) < clients.plans[activity.index].batchEnds.count {
        exportTook(.nextBatch)
        sendNextBatch(activity, sim: &sim)
        return
      }
      exportTook(.lastBatch)
      dropExportedHistory(store, Int(clients.runs[activity.index].historyCovered))
      clients.plans[activity.index].clear()
      finishRun(activity, succeeded: true, sim: &sim)
    }
  }

  /// An export that ends early: the batches it committed leave the history, its plan empties, and
  /// its group is released.
  mutating func endFailedExport(_ activity: ActivityID, sim: inout Simulation<ModelEvent>) {
    dropCommittedHistory(activity)
    clients.plans[activity.index].clear()
    finishRun(activity, succeeded: false, sim: &sim)
  }

  /// Counts an export transition taken (debug builds only: `transitionsTaken`).
  @inline(__always)
  mutating func exportTook(_ transition: ExportTransition) {
    #if DEBUG
      clients.transitionsTaken[transition.rawValue] += 1
    #endif
  }
}
