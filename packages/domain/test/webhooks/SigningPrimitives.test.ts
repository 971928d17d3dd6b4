import { assert, describe, it } from "@effect/vitest"
import * as Hex from "effect/encoding/Hex"
import * as fc from "fast-check"
import { constantTimeEqual, utf8Bytes } from "../../src/webhooks/WebhookSignature.ts"
import { hmacSha256, sha256 } from "../support/SignerMemory.ts"

const hex = (bytes: Uint8Array): string => Hex.encode(bytes)
const filled = (length: number, byte: number): Uint8Array => new Uint8Array(length).fill(byte)

/**
 * The bytes a signature is made of and compared by: the hashes of the test
 * support's in-memory signer (node:crypto) against the published vectors, and
 * the domain's UTF-8 encoding and constant-time compare (WebhookSignature).
 */
describe("signing primitives", () => {
  describe("SHA-256 of the in-memory signer (FIPS 180-4 / NIST examples)", () => {
    it('"abc" digests to ba7816bf...', () => {
      assert.strictEqual(
        hex(sha256("abc")),
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
      )
    })
    it("the empty message digests to e3b0c442...", () => {
      assert.strictEqual(hex(sha256("")), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    })
    it("a 448-bit message, which pads into a second block, digests to 248d6a61...", () => {
      assert.strictEqual(
        hex(sha256("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")),
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
      )
    })
    it("one million 'a' digest to cdc76e5c...", () => {
      assert.strictEqual(
        hex(sha256(filled(1_000_000, 0x61))),
        "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"
      )
    })
  })

  describe("HMAC-SHA256 of the in-memory signer (RFC 4231)", () => {
    it("test case 1: 20-byte 0x0b key, 'Hi There'", () => {
      assert.strictEqual(
        hex(hmacSha256(filled(20, 0x0b), "Hi There")),
        "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"
      )
    })
    it("test case 2: key 'Jefe', 'what do ya want for nothing?'", () => {
      assert.strictEqual(
        hex(hmacSha256("Jefe", "what do ya want for nothing?")),
        "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
      )
    })
    it("test case 3: 20-byte 0xaa key, 50 bytes of 0xdd", () => {
      assert.strictEqual(
        hex(hmacSha256(filled(20, 0xaa), filled(50, 0xdd))),
        "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"
      )
    })
    it("test case 4: key 0x01..0x19, 50 bytes of 0xcd", () => {
      const key = Uint8Array.from({ length: 25 }, (_, i) => i + 1)
      assert.strictEqual(
        hex(hmacSha256(key, filled(50, 0xcd))),
        "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"
      )
    })
    it("test case 6: a key longer than the block is hashed first", () => {
      assert.strictEqual(
        hex(hmacSha256(filled(131, 0xaa), "Test Using Larger Than Block-Size Key - Hash Key First")),
        "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
      )
    })
    it("test case 7: long key and data longer than a block", () => {
      const data =
        "This is a test using a larger than block-size key and a larger than block-size data. " +
        "The key needs to be hashed before being used by the HMAC algorithm."
      assert.strictEqual(
        hex(hmacSha256(filled(131, 0xaa), data)),
        "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"
      )
    })
  })

  describe("UTF-8 (WebhookSignature.utf8Bytes)", () => {
    it("strings are hashed over their UTF-8 bytes (1 to 4 bytes per code point)", () => {
      assert.deepStrictEqual(
        [...utf8Bytes("aé€😀")],
        [0x61, 0xc3, 0xa9, 0xe2, 0x82, 0xac, 0xf0, 0x9f, 0x98, 0x80]
      )
      assert.strictEqual(hex(sha256("é")), hex(sha256(Uint8Array.from([0xc3, 0xa9]))))
    })
    it("a lone surrogate is encoded as U+FFFD, as on the wire", () => {
      assert.deepStrictEqual([...utf8Bytes("a\ud800b")], [0x61, 0xef, 0xbf, 0xbd, 0x62])
      assert.deepStrictEqual([...utf8Bytes("\udc00")], [0xef, 0xbf, 0xbd])
    })
  })

  describe("constant-time compare (WebhookSignature.constantTimeEqual)", () => {
    it("equal strings are equal", () => {
      fc.assert(fc.property(fc.string(), (s) => constantTimeEqual(s, s)))
    })
    it("a wrong length is refused, including a prefix and an empty string", () => {
      const digest = hex(sha256("x"))
      assert.isFalse(constantTimeEqual(digest, digest.slice(0, -1)))
      assert.isFalse(constantTimeEqual(digest, digest + "0"))
      assert.isFalse(constantTimeEqual(digest, ""))
      assert.isFalse(constantTimeEqual("", digest))
    })
    it("a one-character difference anywhere is refused", () => {
      const digest = hex(sha256("y"))
      for (let i = 0; i < digest.length; i++) {
        const flipped = digest[i] === "0" ? "1" : "0"
        assert.isFalse(constantTimeEqual(digest, digest.slice(0, i) + flipped + digest.slice(i + 1)))
      }
    })
  })
})
