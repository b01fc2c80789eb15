import Foundation
import GalleryCrypto
#if canImport(Darwin)
import Darwin
#else
import Glibc
#endif

/// The node's web token (http-api.md section 2): 32 random bytes as 64 lower-case hex digits, in
/// `DIR/http-token`, mode 0600, made on first use and kept across restarts (so that an open page
/// stays signed in when its node restarts).
enum WebToken {
    /// Why the token file cannot be used.
    struct Failure: Error, LocalizedError {
        var errorDescription: String?
    }

    /// The file's name in the node's directory.
    static let fileName = "http-token"

    /// Reads the token of `directory`, making it (mode 0600) when there is none; a file that holds
    /// no token is replaced, one with a wider mode is narrowed to 0600.
    static func load(in directory: URL) throws -> String {
        let path = directory.appendingPathComponent(fileName).path
        if let data = FileManager.default.contents(atPath: path),
           let text = String(data: data, encoding: .utf8)?.trimmingCharacters(in: .whitespacesAndNewlines),
           isToken(text) {
            guard chmod(path, 0o600) == 0 else { throw Failure(errorDescription: "cannot set the mode of \(path) to 0600") }
            return text
        }
        var random = SystemRandomNumberGenerator()
        let token = SHA256.hex((0..<32).map { _ in UInt8.random(in: 0...255, using: &random) })
        let temporary = path + ".tmp"
        unlink(temporary)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard descriptor >= 0 else { throw Failure(errorDescription: "cannot create \(temporary): errno \(errno)") }
        let bytes = Array((token + "\n").utf8)
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        let synced = fsync(descriptor) == 0
        close(descriptor)
        guard written == bytes.count, synced, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw Failure(errorDescription: "cannot write \(path)")
        }
        return token
    }

    /// 64 lower-case hex digits.
    static func isToken(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    /// Equality of two strings in time that depends on their lengths only.
    static func constantTimeEquals(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var difference: UInt8 = 0
        for index in x.indices { difference |= x[index] ^ y[index] }
        return difference == 0
    }
}
