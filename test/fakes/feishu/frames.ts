// The long connection's binary frames (protobuf `pbbp2.Frame`), as the Lark SDK encodes them.
import protobuf from 'protobufjs';

const PROTO = `
syntax = "proto2";
package pbbp2;
message Header { required string key = 1; required string value = 2; }
message Frame {
  required uint64 SeqID = 1; required uint64 LogID = 2; required int32 service = 3; required int32 method = 4;
  repeated Header headers = 5; optional string payloadEncoding = 6; optional string payloadType = 7;
  optional bytes payload = 8; optional string LogIDNew = 9;
}`;

const FrameType = protobuf.parse(PROTO).root.lookupType('pbbp2.Frame');

export interface Frame {
  SeqID: number;
  LogID: number;
  service: number;
  /** 0 control (ping/pong), 1 data (event). */
  method: number;
  headers: { key: string; value: string }[];
  payload?: Uint8Array;
}

export function encodeFrame(frame: Frame): Uint8Array {
  return FrameType.encode(FrameType.create(frame)).finish();
}

export function decodeFrame(data: Uint8Array): Frame {
  return FrameType.toObject(FrameType.decode(data), { longs: Number, defaults: true }) as Frame;
}

export function headerOf(frame: Frame, key: string): string | undefined {
  return frame.headers.find((h) => h.key === key)?.value;
}
