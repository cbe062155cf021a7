/** A worker of the signup pool (signup-workers.ts): a new key, its client certificate and the PKCS#12 file, off the thread that answers requests. */
import { lowerThreadPriority, serveCalls } from '../util/worker.js';
import { pkcs12Credentials } from './certificates.js';
import type { SignupWork } from './signup-workers.js';

lowerThreadPriority(5); // signing and the PKCS#12 key derivation yield the CPU to the thread answering requests
serveCalls<SignupWork>((request) => pkcs12Credentials(request.request));
