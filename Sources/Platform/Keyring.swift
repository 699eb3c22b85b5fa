internal import CShim
import GtkKit
import TouristModel

/// The user's keyring through libsecret: the Secret Service (GNOME Keyring, KWallet …) on the
/// session bus, or inside Flatpak the Secret portal (libsecret ≥ 0.20 then keeps the item in
/// the app's own encrypted file, whose master secret the portal hands out). Every call is async
/// on the GLib main loop: a locked keyring may ask the user to unlock it, and the app goes on
/// meanwhile. Items are found by the app's schema and `service`; a locked item is unlocked
/// (the keyring asks) when read.
@MainActor
public final class Keyring: KeyStore {
    private let service: String
    private let label: String

    /// `label` is what the keyring's own tools (Passwords and Keys) show for the item.
    public init(service: String, label: String) {
        self.service = service
        self.label = label
    }

    public func lookup() async throws -> String? {
        let attributes = vt_keyring_attributes(service)
        defer { g_hash_table_unref(attributes) }
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<String?, any Error>) in
            let reply = Unmanaged.passRetained(Reply(continuation)).toOpaque()
            secret_password_lookupv(vt_keyring_schema(), attributes, nil, { _, result, data in
                let reply = Unmanaged<Reply<String?>>.fromOpaque(data!).takeRetainedValue()
                var error: UnsafeMutablePointer<GError>?
                let password = secret_password_lookup_finish(result, &error)
                if let error {
                    reply.continuation.resume(throwing: Keyring.failure(error))
                    return
                }
                var value: String?
                if let password {
                    value = String(cString: password)
                    secret_password_free(password)  // wipes the copy libsecret made
                }
                reply.continuation.resume(returning: value)
            }, reply)
        }
    }

    public func store(_ key: String) async throws {
        let attributes = vt_keyring_attributes(service)
        defer { g_hash_table_unref(attributes) }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let reply = Unmanaged.passRetained(Reply(continuation)).toOpaque()
            // nil collection: the default keyring ("login" in GNOME), as users expect.
            secret_password_storev(vt_keyring_schema(), attributes, nil, label, key, nil, { _, result, data in
                let reply = Unmanaged<Reply<Void>>.fromOpaque(data!).takeRetainedValue()
                var error: UnsafeMutablePointer<GError>?
                if secret_password_store_finish(result, &error).isTrue, error == nil {
                    reply.continuation.resume()
                } else {
                    reply.continuation.resume(throwing: Keyring.failure(error))
                }
            }, reply)
        }
    }

    public func remove() async throws {
        let attributes = vt_keyring_attributes(service)
        defer { g_hash_table_unref(attributes) }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let reply = Unmanaged.passRetained(Reply(continuation)).toOpaque()
            secret_password_clearv(vt_keyring_schema(), attributes, nil, { _, result, data in
                let reply = Unmanaged<Reply<Void>>.fromOpaque(data!).takeRetainedValue()
                var error: UnsafeMutablePointer<GError>?
                // FALSE without an error: there was nothing to remove.
                _ = secret_password_clear_finish(result, &error)
                if let error {
                    reply.continuation.resume(throwing: Keyring.failure(error))
                } else {
                    reply.continuation.resume()
                }
            }, reply)
        }
    }

    /// libsecret's message (from D-Bus or the keyring), which never contains the secret.
    private nonisolated static func failure(_ error: UnsafeMutablePointer<GError>?) -> KeyStoreError {
        guard let error else { return KeyStoreError(reason: "unknown keyring error") }
        defer { g_error_free(error) }
        return KeyStoreError(reason: string(error.pointee.message) ?? "unknown keyring error")
    }
}

private final class Reply<Value> {
    let continuation: CheckedContinuation<Value, any Error>
    init(_ continuation: CheckedContinuation<Value, any Error>) { self.continuation = continuation }
}
