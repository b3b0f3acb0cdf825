import { homedir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';

/** Limits of DESIGN.md, all configurable; the maxima bound what a caller may ask for. */
export const LimitsSchema = z.object({
  timeoutMs: z.number().int().positive().max(300_000).default(30_000),
  memoryMb: z.number().int().min(16).max(16_384).default(512),
  maxOutputBytes: z.number().int().positive().max(5_000_000).default(50_000),
  maxResults: z.number().int().positive().default(1000),
  maxFileSize: z.number().int().positive().default(300 * 1024 * 1024),
  maxBufferBytes: z.number().int().positive().default(256 * 1024 * 1024),
}).strict();

export const PolicySchema = z.object({
  readonly: z.boolean().optional(),
  allowDelete: z.boolean().optional(),
  allowedCommands: z.array(z.string()).nullable().optional(),
  allowedExtensions: z.array(z.string()).nullable().optional(),
  blockedPatterns: z.array(z.string()).optional(),
  followSymlinks: z.boolean().optional(),
  maxFileSize: z.number().int().positive().optional(),
  pipes: z.boolean().optional(),
}).strict();

export const ConfigSchema = z.object({
  /** Default zone root for calls that name none (a host folder). */
  root: z.string().optional(),
  /** Policy of the root zone. */
  policy: PolicySchema.default({}),
  limits: LimitsSchema.default(LimitsSchema.parse({})),
  /** Worker threads (default: cores). */
  threads: z.number().int().min(1).max(256).optional(),
}).strict();

export type NoshConfig = z.input<typeof ConfigSchema>;
export type ResolvedConfig = z.output<typeof ConfigSchema>;
export type LimitsConfig = z.output<typeof LimitsSchema>;

/** The folder used when nothing is configured: $NOSH_HOME or ~/.nosh. */
export function defaultHome(): string {
  return process.env.NOSH_HOME || join(homedir(), '.nosh');
}
