// The plan catalogue in the operator API (docs/billing.md): create, list, get, and offer one to
// customers (self-service) or stop offering it.
import { Type } from 'typebox';
import { PLAN_ID_PATTERN, type PlansService } from '../billing/index.js';
import { Envelope, errors } from '../http/schemas.js';
import { envelope, unwrap } from '../http/results.js';
import type { HttpServer } from '../http/server.js';
import { adminScope, common } from './routes.js';

const CreatePlan = Type.Object(
  {
    id: Type.String({
      pattern: PLAN_ID_PATTERN,
      description: '2–40 lower-case letters, digits or inner hyphens, e.g. `starter`',
    }),
    name: Type.String({ minLength: 1, maxLength: 100 }),
    currency: Type.String({ minLength: 3, maxLength: 3, description: 'ISO 4217, e.g. EUR' }),
    monthlyFee: Type.String({ maxLength: 20, description: 'Decimal string in the currency, e.g. "49.00"' }),
    included: Type.Integer({ minimum: 0, description: 'Credits per 30-day window' }),
    overage: Type.Boolean({ description: 'Serve and bill requests past the allowance instead of refusing them' }),
    overagePrice: Type.Optional(
      Type.String({
        maxLength: 20,
        description: 'Price of one request past the allowance, e.g. "0.002" (with overage only)',
      }),
    ),
    selfService: Type.Optional(
      Type.Boolean({ description: 'Customers may switch to it on the dashboard (default false)' }),
    ),
  },
  { additionalProperties: false },
);

const UpdatePlan = Type.Object(
  { selfService: Type.Boolean({ description: 'Customers may switch to it on the dashboard; its terms never change' }) },
  { additionalProperties: false },
);

const PlanView = Type.Object({
  id: Type.String(),
  name: Type.String(),
  currency: Type.String(),
  monthlyFee: Type.String(),
  included: Type.Integer(),
  overage: Type.Boolean(),
  overagePrice: Type.Union([Type.String(), Type.Null()]),
  selfService: Type.Boolean(),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});

const PlanParams = Type.Object({ plan: Type.String({ maxLength: 100 }) });

export function planRoutes(app: HttpServer, deps: { adminToken: string; plans: PlansService }): void {
  const { plans } = deps;
  adminScope(app, deps.adminToken, (admin) => {
    admin.post(
      '/api/admin/v1/plans',
      {
        schema: {
          ...common,
          body: CreatePlan,
          response: { 201: Envelope(PlanView, 'Created'), ...errors(400, 401, 409) },
        },
      },
      async (request, reply) => reply.code(201).send(envelope(unwrap(await plans.create(request.body)))),
    );
    admin.get(
      '/api/admin/v1/plans',
      {
        schema: {
          ...common,
          response: { 200: Envelope(Type.Object({ plans: Type.Array(PlanView) }), 'The catalogue'), ...errors(401) },
        },
      },
      async () => envelope({ plans: await plans.list() }),
    );
    admin.get(
      '/api/admin/v1/plans/:plan',
      {
        schema: {
          ...common,
          params: PlanParams,
          response: { 200: Envelope(PlanView, 'The plan'), ...errors(401, 404) },
        },
      },
      async (request) => envelope(unwrap(await plans.get(request.params.plan))),
    );
    admin.patch(
      '/api/admin/v1/plans/:plan',
      {
        schema: {
          ...common,
          params: PlanParams,
          body: UpdatePlan,
          response: { 200: Envelope(PlanView, 'The plan'), ...errors(400, 401, 404) },
        },
      },
      async (request) => envelope(unwrap(await plans.setSelfService(request.params.plan, request.body.selfService))),
    );
  });
}
