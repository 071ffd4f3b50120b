/// Closed sets of names shared by the model, JSON, CSV and the README (one spelling each).

/// The app's lifecycle state on a device (spec §3).
public enum AppState: String, Sendable, CaseIterable, Codable {
  case notRunning, foreground, background, suspended
}

/// When a device's context saves (spec §4).
public enum SavePolicyKind: String, Sendable, CaseIterable, Codable {
  /// Save after every edit.
  case immediate
  /// Save once no edit has happened for the debounce interval.
  case debounce
  /// Save every interval while there are unsaved edits.
  case interval
  /// Save only when the app leaves the foreground ([HowTo]'s anti-pattern).
  case onBackground
}

/// How an imported change becomes visible to the person (spec §4).
public enum UIRefreshKind: String, Sendable, CaseIterable, Codable {
  /// Visible when the view context merges (`automaticallyMergesChangesFromParent`).
  case fetchedResults
  /// Re-fetch on import-finished events, debounced ([HowTo]).
  case reloadOnImportEvent
  /// A view model that fetched once: visible at the next launch or activation.
  case onLaunch
}

/// The kind of a scheduler activity.
public enum ActivityKind: String, Sendable, CaseIterable, Codable {
  case export, `import`, setup
}

/// Why an activity was requested (the labels TN3163/TN3164 log show).
public enum ActivityTrigger: String, Sendable, CaseIterable, Codable {
  case save, appDeactivation, exportAgain, push, launch, activation, nudge, poll, importAgain, initial, retry
  /// The app called CKSyncEngine's `sendChanges` or `fetchChanges`: it starts at once.
  case manual
}

/// The CloudKit database a zone belongs to.
public enum DatabaseScope: String, Sendable, CaseIterable, Codable {
  case `private`, shared, `public`
}

/// How the server merges a modify request into its records (spec §9).
public enum ServerSavePolicy: String, Sendable, CaseIterable, Codable {
  /// Field-level: the changed fields of the arriving record win (default).
  case changedKeys
  /// Record-level: the arriving record replaces every field.
  case allKeys
  /// Refuses a record changed since the device last saw it (serverRecordChanged); the device
  /// merges its changed fields into the server record and retries.
  case ifServerRecordUnchanged
}

/// The CloudKit errors the model produces (CKError codes), each with its documented recovery.
public enum CloudError: String, Sendable, CaseIterable, Codable {
  /// Offline: the activity fails and a new one waits for the network.
  case networkUnavailable
  /// A transient failure: retry at once, then back off.
  case networkFailure
  /// Too many records or bytes: split the batch in half and retry both.
  case limitExceeded
  /// The container is throttled: no request before retry-after.
  case serviceUnavailable
  /// The device is throttled: no request from it before retry-after. [A] TN3162
  case requestRateLimited
  /// The zone is busy: try again in a few seconds, doubling the delay. [A] CKError.h
  case zoneBusy
  /// The account's storage is full: export stalls until quota is freed.
  case quotaExceeded
  /// A record the server refuses: its whole atomic batch fails (batchRequestFailed).
  case partialFailure
  /// The record changed on the server since the device saw it (ifServerRecordUnchanged).
  case serverRecordChanged
  /// The device's change token is older than the server keeps: reset and re-fetch from nil.
  case changeTokenExpired
  /// The zone is not on the server (deleted, or an encrypted-data reset): the store resets.
  /// [A] CKError.h zoneNotFound (26)
  case zoneNotFound
  /// The account is signed in but not available for now: the store stalls until the stated time.
  /// [A] CKError.h accountTemporarilyUnavailable (36)
  case accountTemporarilyUnavailable
}

extension CloudError {
  /// The errors every run's summary has a column for. An error added later is reported only
  /// in runs whose faults can raise it (`WorldSpec.reportedErrors`), so adding it, off by
  /// default, changes no committed result.
  public static let alwaysReported: [CloudError] = [
    .networkUnavailable, .networkFailure, .limitExceeded, .serviceUnavailable, .requestRateLimited, .zoneBusy,
    .quotaExceeded, .partialFailure, .serverRecordChanged, .changeTokenExpired,
  ]
}

/// The kind of edit a person makes (spec §4).
public enum EditKind: String, Sendable, CaseIterable, Codable {
  case insert, update, delete, increment, addContribution
  /// An update that marks the object deleted (propagates in the public database, unlike delete).
  case softDelete
}

/// Why the mirroring delegate reset a store (`NSCloudKitMirroringDelegateResetSyncReasonKey`). [RE]
/// Why the scheduler dropped an activity before it ran.
public enum CancelReason: String, Sendable, CaseIterable, Codable {
  /// Sync was turned off for the store (a second container failed to set up: 134410).
  case storeDisabled
  /// The store was removed.
  case storeRemoved
  /// A mirroring reset started over: it imports everything again and exports after.
  case reset
  /// The app was terminated (or force-quit): its process, and the container in it, is gone;
  /// the next launch asks again.
  case appTerminated
}

public enum ResetReason: String, Sendable, CaseIterable, Codable {
  case accountChange, zoneDeleted, userPurgedZone, historyExpired, tokenExpired
}

/// Why a write was lost without reaching the server.
public enum LossReason: String, Sendable, CaseIterable, Codable {
  /// Saved during a mirroring reset with the reset guard off.
  case savedDuringReset
  /// The store was removed (toggling sync by removing the store first).
  case storeRemoved
  /// The app crashed before saving its context: the unsaved edits were in memory.
  case crashed
  /// A CKSyncEngine app crashed before writing its state: the pending changes added since its
  /// last written state are no longer pending, so they are never sent.
  case stateNotPersisted
}

/// The outcome of one (write, observer device) pair at the end of a run (spec §10).
public enum WriteOutcome: String, Sendable, CaseIterable, Codable {
  /// The observer saw it: the row has a latency.
  case visible
  /// Committed, but the observer had not shown it when the run ended.
  case notVisible
  /// Saved or unsaved on its device, never committed.
  case pending
  /// Replaced on its own device by a later edit before it was exported.
  case supersededLocally
  /// Overwritten at the server by a device that had not seen it (a lost update).
  case lostUpdate
  /// Lost on its device without reaching the server (a reset, a removed store).
  case lost
  /// The observer's app runs an older model version and does not fetch the record.
  case hidden
}
